/**
 * When an event being written happens, from what a client sends: whole days as dates
 * (`2026-03-10`, end exclusive), local date-times with the IANA zone they are in, or instants
 * with an offset. Wrong times are refused rather than guessed: a local time without a zone, a
 * local time the zone skips or repeats (DST), an offset that the zone does not have at that
 * moment, an end not after the start. And the one format of every time a client is shown. Pure.
 */

import { AppError, invalidField } from '../errors.ts';
import { instantInZone } from './time/shownInstants.ts';
import { isIanaZone } from './time/zones.ts';

/**
 * Every time a client is shown (events, busy time, slots, now): RFC 3339 to the second with the
 * offset `zone` has at that instant (`2026-03-29T03:00:00+02:00`), `Z` when there is no zone.
 */
export const showInstant = (at: Temporal.Instant, zone: string | undefined): string =>
  zone === undefined ? at.toString({ smallestUnit: 'second' }) : instantInZone(at, zone);

/**
 * When an event being written happens: whole days (`endDate` exclusive, as in iCalendar), or
 * local date-times `YYYY-MM-DDTHH:MM:SS` that both exist exactly once in `timeZone` (IANA).
 */
export type EventTiming =
  | { allDay: true; startDate: string; endDate: string }
  | { allDay: false; start: string; end: string; timeZone: string };

export interface TimingInput {
  start: string;
  end: string;
  timeZone?: string | undefined;
}

/** Longest event accepted, in days: providers refuse or mangle longer ones. */
export const maxEventDays = 366;
const earliestYear = 1900;
const latestYear = 2199;

const datePattern = /^\d{4}-\d{2}-\d{2}$/;
const localPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;
const offsetPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

const formsHelp =
  'Use a date (2026-03-10) for an all-day event, or a local date-time (2026-03-10T09:00:00) with timeZone, or a date-time with an offset (2026-03-10T09:00:00+01:00).';

type Form = 'date' | 'local' | 'offset';

function formOf(field: string, value: string): Form {
  if (datePattern.test(value)) return 'date';
  if (localPattern.test(value)) return 'local';
  if (offsetPattern.test(value)) return 'offset';
  throw invalidField(field, `${field} is not a date or date-time this service accepts. ${formsHelp}`);
}

function inRange(field: string, year: number): void {
  if (year < earliestYear || year > latestYear) {
    throw invalidField(field, `${field} must be between the years ${earliestYear} and ${latestYear}.`);
  }
}

function plainDate(field: string, value: string): Temporal.PlainDate {
  try {
    const date = Temporal.PlainDate.from(value, { overflow: 'reject' });
    inRange(field, date.year);
    return date;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw invalidField(field, `${field} is not a real date.`);
  }
}

/** The one instant a local time stands for in `zone`; DST gaps and repeats are refused. */
function exactLocal(field: string, value: string, zone: string): Temporal.ZonedDateTime {
  let local: Temporal.PlainDateTime;
  try {
    local = Temporal.PlainDateTime.from(value, { overflow: 'reject' });
  } catch {
    throw invalidField(field, `${field} is not a real date and time.`);
  }
  inRange(field, local.year);
  const earlier = local.toZonedDateTime(zone, { disambiguation: 'earlier' });
  const later = local.toZonedDateTime(zone, { disambiguation: 'later' });
  if (!earlier.toPlainDateTime().equals(local)) {
    throw invalidField(
      field,
      `${value} does not exist in ${zone}: the clocks skip it (daylight saving time). Choose another time.`,
    );
  }
  if (!earlier.equals(later)) {
    throw invalidField(
      field,
      `${value} happens twice in ${zone} (the clocks go back): give it with its offset, ${earlier.offset} or ${later.offset}.`,
    );
  }
  return earlier;
}

/**
 * An instant with an offset, in `zone`. When the caller named the zone (`checked`), the offset
 * must be the one it has then; a zone the caller did not name (the calendar's) checks nothing,
 * since read times carry the offsets of the zone the reader asked for.
 */
function exactOffset(field: string, value: string, zone: string, checked: boolean): Temporal.ZonedDateTime {
  let instant: Temporal.Instant;
  try {
    instant = Temporal.Instant.from(value);
  } catch {
    throw invalidField(field, `${field} is not a real date and time.`);
  }
  const zoned = instant.toZonedDateTimeISO(zone);
  inRange(field, zoned.year);
  const given = /(Z|[+-]\d{2}:\d{2})$/i.exec(value)?.[1]?.toUpperCase();
  const local = value.slice(0, value.length - (given?.length ?? 0));
  const sameWallClock = Temporal.PlainDateTime.from(local).equals(zoned.toPlainDateTime());
  // `Z` names an instant only; any other offset must be the named zone's own at that moment.
  if (checked && given !== 'Z' && !sameWallClock) {
    throw invalidField(
      field,
      `${value} has the offset ${given}, but ${zone} is at ${zoned.offset} then: give the local time with timeZone, or the right offset.`,
    );
  }
  return zoned;
}

/**
 * The timing a write asks for. `fallbackZone` (the calendar's zone, else Etc/UTC) only names
 * the zone of times given as instants with an offset and no timeZone — never a local time's.
 */
export function parseTiming(input: TimingInput, fallbackZone: string): EventTiming {
  const startForm = formOf('start', input.start);
  const endForm = formOf('end', input.end);
  if ((startForm === 'date') !== (endForm === 'date')) {
    throw invalidField('end', 'start and end must both be dates (all-day) or both date-times.');
  }
  if (input.timeZone !== undefined && !isIanaZone(input.timeZone)) {
    throw new AppError('invalid_time_zone', 'timeZone must be an IANA time zone such as Europe/Berlin.', {
      details: { field: 'timeZone' },
    });
  }
  if (startForm === 'date') {
    const start = plainDate('start', input.start);
    const end = plainDate('end', input.end);
    const days = start.until(end, { largestUnit: 'day' }).days;
    if (days <= 0) {
      throw invalidField(
        'end',
        'end must be after start; for all-day events it is exclusive: one day on 10 March is start 2026-03-10, end 2026-03-11.',
      );
    }
    if (days > maxEventDays) throw invalidField('end', `An event may last at most ${maxEventDays} days.`);
    return { allDay: true, startDate: start.toString(), endDate: end.toString() };
  }
  const local = startForm === 'local' || endForm === 'local';
  if (local && input.timeZone === undefined) {
    throw new AppError(
      'time_zone_required',
      'A local time needs timeZone: ask the user for their IANA time zone (never guess it), or give the times with an offset.',
      { details: { field: 'timeZone' } },
    );
  }
  const zone = input.timeZone ?? fallbackZone;
  const at = (field: 'start' | 'end', value: string, form: Form) =>
    form === 'local'
      ? exactLocal(field, value, zone)
      : exactOffset(field, value, zone, input.timeZone !== undefined);
  const start = at('start', input.start, startForm);
  const end = at('end', input.end, endForm);
  if (Temporal.ZonedDateTime.compare(end, start) <= 0) throw invalidField('end', 'end must be after start.');
  if (end.toInstant().since(start.toInstant()).total('hours') > maxEventDays * 24) {
    throw invalidField('end', `An event may last at most ${maxEventDays} days.`);
  }
  // Providers keep whole seconds: a fraction is cut, never rounded into the next second.
  const second = { smallestUnit: 'second' } as const;
  return {
    allDay: false,
    start: start.toPlainDateTime().toString(second),
    end: end.toPlainDateTime().toString(second),
    timeZone: zone,
  };
}
