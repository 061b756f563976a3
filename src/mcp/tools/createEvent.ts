/** `create_event`: one new event or series, never a duplicate (idempotencyKey). */
import { createEvent as create } from '../../calendars/writes/createEvent.ts';
import type { RecurrenceInput } from '../../domain/eventRecurrence.ts';
import { eventSchema } from '../../domain/eventSchema.ts';
import { type GuestInput, parseGuests } from '../../domain/guests.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import { guestListSchema, guestsAnswerSchema } from './guestArguments.ts';
import { bookedRoomsSchema, roomGuests } from './roomArguments.ts';
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
  rooms?: string[];
  idempotencyKey?: string;
}

export const createEvent: ToolDefinition = {
  name: 'create_event',
  title: 'Create an event',
  description: [
    'Creates one event and returns it as it now is.',
    timesRule,
    "With recurrence, it is the first occurrence of a series repeating every interval days, weeks (on daysOfWeek), months (on start's day, or weekdayPosition such as the last friday) or years (on start's date), count times, until a date, or without end, at the same local time in timeZone across DST changes; each occurrence ends before the next starts; the answer shows the first. Monthly on days 29-31 and yearly on 29 February are refused: use weekdayPosition.",
    'Pass an idempotencyKey (unique per intended event, e.g. a UUID): a repeat with the same key and arguments returns the same event, so repeating after a timeout is safe.',
    outcomeRule,
  ].join(' '),
  scopes: ['calendar:write'],
  inputSchema: closedObject(
    {
      calendarId: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        description: 'An id from list_calendars.',
      },
      title: writeArgumentSchemas.title,
      start: writeArgumentSchemas.start,
      end: writeArgumentSchemas.end,
      timeZone: writeArgumentSchemas.timeZone,
      description: { type: 'string', maxLength: 8192 },
      location: { type: 'string', maxLength: 1024, description: 'One place name.' },
      freeBusyStatus: writeArgumentSchemas.freeBusyStatus,
      privacy: writeArgumentSchemas.privacy,
      alerts: writeArgumentSchemas.alerts,
      conference: {
        type: 'boolean',
        description: 'true adds a Google Meet or Microsoft Teams meeting and its link (none on CalDAV).',
      },
      recurrence: {
        ...writeArgumentSchemas.recurrence,
      },
      attendees: guestListSchema("Guests to invite (never the user's own address)."),
      rooms: bookedRoomsSchema,
      idempotencyKey: {
        type: 'string',
        minLength: 1,
        maxLength: 128,
        pattern: '^[A-Za-z0-9._:-]+$',
        description: 'Your key for this one event.',
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
        description: 'already_applied: this idempotencyKey created it before; not created again.',
      },
      event: eventSchema,
      guests: guestsAnswerSchema,
    },
    ['ok', 'outcome', 'event'],
  ),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },

  async run(args: CreateArguments, { principal, calendars }) {
    const { timing, description, location, ...fields } = changesOf(args);
    const guests = [
      ...(args.attendees ?? []),
      ...(await roomGuests(args.rooms, 'rooms', { principal, calendars })),
    ];
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
      ...(args.attendees === undefined && args.rooms === undefined
        ? {}
        : { attendees: parseGuests('attendees', guests) }),
      ...(args.idempotencyKey === undefined ? {} : { idempotencyKey: args.idempotencyKey }),
    });
    return eventOutcome(result);
  },
};
