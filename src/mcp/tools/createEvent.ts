/** `create_event`: one new event or series, never a duplicate (idempotencyKey). */
import { createEvent as create } from '../../calendars/writes/createEvent.ts';
import type { RecurrenceInput } from '../../domain/eventRecurrence.ts';
import { eventSchema } from '../../domain/eventSchema.ts';
import { type GuestInput, parseGuests } from '../../domain/guests.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import { guestListSchema, guestsAnswerSchema } from './guestArguments.ts';
import {
  type ChangeArguments,
  changesOf,
  eventOutcome,
  outcomeRule,
  timesRule,
  writeArgumentSchemas,
} from './writeArguments.ts';

interface CreateArguments extends ChangeArguments {
  calendarId: string;
  title: string;
  start: string;
  end: string;
  recurrence?: RecurrenceInput;
  conference?: boolean;
  attendees?: GuestInput[];
  idempotencyKey?: string;
}

export const createEvent: ToolDefinition = {
  name: 'create_event',
  title: 'Create an event',
  description: [
    'Creates one event in a calendar the user shared with this assistant and returns it as it now is.',
    timesRule,
    "With recurrence, the event is the first occurrence of a series repeating every interval days (daily), weeks (weekly, on daysOfWeek, which must include the weekday of start), months (monthly: on the start's day of the month, or with weekdayPosition on e.g. its last friday) or years (yearly, on the start's date), count times, until a date, or without end; occurrences keep their local time in timeZone across daylight saving changes. Each occurrence must end before the next starts. Monthly on days 29-31 and yearly on 29 February are refused (not every month has them): use weekdayPosition. The answer shows the first occurrence.",
    'Pass an idempotencyKey (any unique string you choose per intended event, e.g. a UUID): repeating the call with the same key and arguments returns the same event instead of creating a second one, so a repeat after a timeout is always safe.',
    outcomeRule,
  ].join(' '),
  scopes: ['calendar:write'],
  inputSchema: closedObject(
    {
      calendarId: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        description: 'The calendar id, exactly as list_calendars returns it.',
      },
      title: writeArgumentSchemas.title,
      start: writeArgumentSchemas.start,
      end: writeArgumentSchemas.end,
      timeZone: writeArgumentSchemas.timeZone,
      description: { type: 'string', maxLength: 8192, description: 'Notes, up to 8192 characters.' },
      location: { type: 'string', maxLength: 1024, description: 'Where, as one place name.' },
      freeBusyStatus: writeArgumentSchemas.freeBusyStatus,
      privacy: writeArgumentSchemas.privacy,
      alerts: writeArgumentSchemas.alerts,
      conference: {
        type: 'boolean',
        description:
          "true adds the provider's own online meeting (Google Meet, Microsoft Teams) and its link; CalDAV calendars have none.",
      },
      recurrence: {
        description: 'Makes the event repeat; leave it out for a single event.',
        ...writeArgumentSchemas.recurrence,
      },
      attendees: guestListSchema(
        "Guests to invite, up to 100, never the user's own address. The calendar sends the invitations where it can; the answer's guests says whether it did.",
      ),
      idempotencyKey: {
        type: 'string',
        minLength: 1,
        maxLength: 128,
        pattern: '^[A-Za-z0-9._:-]+$',
        description: 'Your key for this one event: 1 to 128 letters, digits, or . _ : -',
      },
    },
    ['calendarId', 'title', 'start', 'end'],
  ),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      outcome: {
        type: 'string',
        enum: ['applied', 'already_applied'],
        description:
          'already_applied: this idempotencyKey created the event before; it was not created again.',
      },
      event: eventSchema,
      guests: guestsAnswerSchema,
    },
    ['ok', 'outcome', 'event'],
  ),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },

  async run(args: CreateArguments, { principal, calendars }) {
    const { timing, description, location, ...fields } = changesOf(args);
    const result = await create(calendars, principal, {
      ...fields,
      // Empty texts are simply left out of a new event.
      ...(description ? { description } : {}),
      ...(location ? { location } : {}),
      calendarId: args.calendarId,
      title: args.title,
      timing: timing!,
      ...(args.recurrence === undefined ? {} : { recurrence: args.recurrence }),
      ...(args.conference === true ? { conference: true } : {}),
      ...(args.attendees === undefined ? {} : { attendees: parseGuests('attendees', args.attendees) }),
      ...(args.idempotencyKey === undefined ? {} : { idempotencyKey: args.idempotencyKey }),
    });
    return eventOutcome(result);
  },
};
