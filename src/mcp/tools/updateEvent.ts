/** `update_event`: changes only the fields given, of one event, one occurrence, the following ones, or a series. */
import { updateEvent as update } from '../../calendars/writes/changeEvent.ts';
import type { RecurrenceInput } from '../../domain/eventRecurrence.ts';
import type { SeenValues } from '../../domain/seenValues.ts';
import { invalidField } from '../../errors.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import {
  type GuestArguments,
  guestArgumentSchemas,
  guestChangesOf,
  notifyRule,
  withGuestsAnswer,
} from './guestArguments.ts';
import { bookedRoomsSchema, roomGuests } from './roomArguments.ts';
import {
  addressOf,
  type ChangeArguments,
  changedEventSchema,
  changesOf,
  eventOutcome,
  outcomeRule,
  seenSchema,
  splitAddressSchemas,
  timesRule,
  writeArgumentSchemas,
} from './writeArguments.ts';

interface UpdateArguments extends ChangeArguments, GuestArguments {
  eventId: string;
  rooms?: string[];
  recurrence?: RecurrenceInput;
  seen: SeenValues;
  occurrenceId?: string;
  scope?: 'occurrence' | 'series' | 'following';
}

export const updateEvent: ToolDefinition = {
  name: 'update_event',
  title: 'Change an event',
  description: [
    'Changes the given fields of an event with canEdit true (else the error code is its editBlockedReason), keeps the others, and returns it as it now is.',
    'With scope "series", start and end are the new times of the occurrence named by occurrenceId (else the first; seen is compared with it too), and every occurrence moves alike in the series\' zone; a move to another day, or a new rule, needs recurrence (as for create_event, for the new first occurrence). A series with occurrences changed or cancelled on their own does not move (series_has_exceptions names them), nor does a Microsoft 365 series.',
    'With scope "following", a new series starts at the occurrence named, with the changes (start and end: its new times), and the old one ends before it; refused likewise while later occurrences stand apart.',
    timesRule,
    'To move an event give start and end. Give seen (what you read of the fields you change): if the event changed there since, or changes meanwhile, the answer is a conflict with it as it now is: check with the user, then try again.',
    notifyRule,
    outcomeRule,
  ].join(' '),
  scopes: ['calendar:write'],
  inputSchema: closedObject(
    {
      ...splitAddressSchemas,
      title: writeArgumentSchemas.title,
      description: writeArgumentSchemas.description,
      location: writeArgumentSchemas.location,
      start: writeArgumentSchemas.start,
      end: writeArgumentSchemas.end,
      timeZone: writeArgumentSchemas.timeZone,
      freeBusyStatus: writeArgumentSchemas.freeBusyStatus,
      privacy: writeArgumentSchemas.privacy,
      alerts: writeArgumentSchemas.alerts,
      recurrence: {
        description: 'scope "series" or "following" only: the new rule.',
        ...writeArgumentSchemas.recurrence,
      },
      seen: seenSchema,
      ...guestArgumentSchemas,
      rooms: bookedRoomsSchema,
    },
    ['eventId', 'seen'],
  ),
  outputSchema: withGuestsAnswer(changedEventSchema),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },

  async run(args: UpdateArguments, { principal, calendars }) {
    const guests = guestChangesOf(args, await roomGuests(args.rooms, 'rooms', { principal, calendars }));
    const changes = {
      ...changesOf(args),
      ...(guests === undefined ? {} : { guests }),
      ...(args.recurrence === undefined ? {} : { recurrence: args.recurrence }),
    };
    if (Object.keys(changes).length === 0) {
      throw invalidField(
        'arguments',
        'Give at least one field to change (title, description, location, start and end, freeBusyStatus, privacy, alerts, recurrence, addAttendees, removeAttendees, rooms).',
      );
    }
    const result = await update(calendars, principal, {
      ...addressOf(args),
      changes,
      seen: args.seen,
      ...(args.notifyAttendees === undefined ? {} : { notifyAttendees: args.notifyAttendees }),
    });
    return eventOutcome(result);
  },
};
