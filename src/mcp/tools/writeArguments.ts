/**
 * The arguments the write tools share, described for a model, and the words every write tool
 * says about times, recurring events and what to do when a write's outcome is unknown.
 */
import type { Changes, EventAddress } from '../../calendars/writes/changeEvent.ts';
import { type Alert, alertActions, type Event, freeBusyStatuses, privacies } from '../../domain/event.ts';
import {
  frequencies,
  maxInterval,
  maxOccurrences,
  positions,
  weekdays,
} from '../../domain/eventRecurrence.ts';
import { alertSchema, eventSchema, locationSchema } from '../../domain/eventSchema.ts';
import type { GuestsAnswer } from '../../domain/guests.ts';
import { maxTimeZoneLength } from '../../domain/readRequest.ts';
import { maxAlerts, writeAlerts } from '../../domain/writeAlerts.ts';
import { invalidField } from '../../errors.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolOutcome } from '../tool.ts';

const text = (maxLength: number, description?: string) =>
  ({
    type: 'string',
    minLength: 1,
    maxLength,
    ...(description === undefined ? {} : { description }),
  }) as const;
/** A text a write may remove: a string, or null to clear it. */
const clearable = (maxLength: number, description: string) =>
  ({ anyOf: [{ type: 'string', maxLength }, { type: 'null' }], description }) as const;

export const timesRule =
  'Times: local (2026-03-10T09:00:00) with timeZone, the IANA zone the user means (ask; never guess), or with an offset (+01:00; checked against timeZone if both); a local time a DST change skips or repeats is refused. All-day: dates, end exclusive (10 March: 2026-03-10 to 2026-03-11).';

export const outcomeRule =
  'After write_outcome_unknown, do not repeat the change: read the event first to see whether it was made.';

export const writeArgumentSchemas = {
  eventId: text(1024, 'As the read tools return it.'),
  occurrenceId: text(1024, 'As the read tools return it.'),
  scope: {
    type: 'string',
    enum: ['occurrence', 'series'],
    description:
      'Required for a recurring event: "occurrence" (with occurrenceId) only that one, never the others; "series" every occurrence.',
  },
  title: text(1024),
  description: clearable(8192, 'Notes; null removes them.'),
  location: clearable(1024, 'One place name; null removes it.'),
  start: text(64),
  end: text(64, 'Exclusive, after start, at most 366 days later.'),
  timeZone: { type: 'string', minLength: 1, maxLength: maxTimeZoneLength },
  freeBusyStatus: { type: 'string', enum: ['busy', 'free'] },
  privacy: {
    type: 'string',
    enum: ['public', 'private'],
    description: 'private hides details from people the calendar is shared with.',
  },
  alerts: {
    type: 'array',
    maxItems: maxAlerts,
    items: closedObject(
      {
        offset: { type: 'string', minLength: 3, maxLength: 32 },
        action: { type: 'string', enum: alertActions },
      },
      ['offset'],
    ),
    description:
      'All reminders ([] removes them): offset before the start (-PT15M, -P1D; at most -P28D), action display (default) or email. Microsoft 365: one display reminder; CalDAV: display only.',
  },
  /** A series' rule, without its description (each tool says what it does there). */
  recurrence: closedObject(
    {
      frequency: {
        type: 'string',
        enum: [...frequencies],
      },
      interval: {
        type: 'integer',
        minimum: 1,
        maximum: maxInterval,
        default: 1,
      },
      daysOfWeek: {
        type: 'array',
        items: { type: 'string', enum: [...weekdays] },
        minItems: 1,
        maxItems: 7,
        uniqueItems: true,
        description: "Weekly only; includes start's weekday (the default).",
      },
      weekdayPosition: {
        description: "Monthly only: this weekday of the month (it must fit start) instead of start's day.",
        ...closedObject(
          {
            position: { type: 'string', enum: [...positions] },
            day: { type: 'string', enum: [...weekdays] },
          },
          ['position', 'day'],
        ),
      },
      count: {
        type: 'integer',
        minimum: 1,
        maximum: maxOccurrences,
        description: 'Occurrences in all, the first included. Not with until.',
      },
      until: {
        type: 'string',
        minLength: 10,
        maxLength: 10,
        description:
          "Last date an occurrence may start on (2026-12-31), in the event's zone. Not with count.",
      },
    },
    ['frequency'],
  ),
} as const;

const orNull = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });

/** What the caller read of the event: a write is refused when the event no longer shows it. */
export const seenSchema = {
  ...closedObject({
    // Read text is written by others and may be longer than a write may set: bounded by the body only.
    title: { type: 'string', maxLength: 65536 },
    description: orNull({ type: 'string', maxLength: 262144 }),
    locations: orNull({ type: 'array', maxItems: 50, items: locationSchema }),
    start: { type: 'string', maxLength: 64 },
    timeZone: orNull({ type: 'string', maxLength: maxTimeZoneLength }),
    duration: { type: 'string', maxLength: 64 },
    freeBusyStatus: { type: 'string', enum: freeBusyStatuses },
    privacy: orNull({ type: 'string', enum: privacies }),
    alerts: orNull({ type: 'array', maxItems: 50, items: alertSchema }),
  }),
  description:
    // What a changed event answers (a conflict) is said by update_event and delete_event.
    'The event as read (copied from the read tools): the fields you change (start and duration to move it), null where it had none.',
} as const;

/** How update, delete and respond name their event. */
export const addressSchemas = {
  eventId: writeArgumentSchemas.eventId,
  occurrenceId: writeArgumentSchemas.occurrenceId,
  scope: writeArgumentSchemas.scope,
};

/** How update and delete name their event: also an occurrence and the later ones. */
export const splitAddressSchemas = {
  ...addressSchemas,
  scope: {
    ...writeArgumentSchemas.scope,
    enum: [...writeArgumentSchemas.scope.enum, 'following'],
    description: `${writeArgumentSchemas.scope.description} "following" (with occurrenceId) it and the later ones, split off.`,
  },
};

/** The answer of a write that leaves an event: the event as it now is. */
export const changedEventSchema = closedObject(
  { ok: { type: 'boolean', const: true }, outcome: { type: 'string', const: 'applied' }, event: eventSchema },
  ['ok', 'outcome', 'event'],
);

export interface TimeArguments {
  start?: string;
  end?: string;
  timeZone?: string;
}

export interface ChangeArguments extends TimeArguments {
  title?: string;
  alerts?: Alert[];
  description?: string | null;
  location?: string | null;
  freeBusyStatus?: 'busy' | 'free';
  privacy?: 'public' | 'private';
}

/** The time part of a change: start and end together, or neither. */
export function timingOf(args: TimeArguments): Changes['timing'] {
  if (args.start === undefined && args.end === undefined) {
    if (args.timeZone !== undefined) throw invalidField('timeZone', 'timeZone goes with start and end.');
    return undefined;
  }
  if (args.start === undefined || args.end === undefined) {
    throw invalidField(args.start === undefined ? 'start' : 'end', 'Give start and end together.');
  }
  return {
    start: args.start,
    end: args.end,
    ...(args.timeZone === undefined ? {} : { timeZone: args.timeZone }),
  };
}

/** The fields a change sets; a `null` description or location removes it. */
export function changesOf(args: ChangeArguments): Changes {
  const changes: Changes = {};
  if (args.title !== undefined) changes.title = args.title;
  if (args.description !== undefined) changes.description = args.description === '' ? null : args.description;
  if (args.location !== undefined) changes.location = args.location === '' ? null : args.location;
  if (args.freeBusyStatus !== undefined) changes.freeBusyStatus = args.freeBusyStatus;
  if (args.privacy !== undefined) changes.privacy = args.privacy;
  if (args.alerts !== undefined) changes.alerts = writeAlerts(args.alerts);
  const timing = timingOf(args);
  if (timing !== undefined) changes.timing = timing;
  return changes;
}

export const addressOf = (args: EventAddress): EventAddress => ({
  eventId: args.eventId,
  ...(args.occurrenceId === undefined ? {} : { occurrenceId: args.occurrenceId }),
  ...(args.scope === undefined ? {} : { scope: args.scope }),
});

/** The answer of a write that leaves an event: the event as it now is, and whom it concerned. */
export const eventOutcome = (result: {
  outcome: string;
  event: Event;
  guests?: GuestsAnswer;
  confirmedByRead: boolean;
}): ToolOutcome =>
  writeOutcome(
    {
      ok: true,
      outcome: result.outcome,
      event: result.event,
      ...(result.guests === undefined ? {} : { guests: result.guests }),
    },
    result.confirmedByRead,
  );

/** A write's result, with a sentence when the provider did not confirm and a fresh read did. */
export function writeOutcome(structured: Record<string, unknown>, confirmedByRead: boolean): ToolOutcome {
  return confirmedByRead
    ? {
        structured,
        notes: [
          'The calendar did not confirm in time; a fresh read shows the change was made, so do not repeat it.',
        ],
      }
    : { structured };
}
