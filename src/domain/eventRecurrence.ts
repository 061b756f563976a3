/**
 * How a new event repeats: every n days, or every n weeks on chosen weekdays; a number of
 * times, until a date, or without end. These are the rules every provider holds alike (an
 * iCalendar RRULE, Google's recurrence lines, Graph's patternedRecurrence), so a series reads
 * back the same everywhere. The event itself is always the first occurrence. Pure.
 */

import { invalidField } from '../errors.ts';
import type { EventTiming } from './eventTiming.ts';

export const weekdays = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type Weekday = (typeof weekdays)[number];

export const maxInterval = 99;
export const maxOccurrences = 730;
const latestYear = 2199;

export interface RecurrenceInput {
  frequency: 'daily' | 'weekly';
  interval?: number | undefined;
  daysOfWeek?: Weekday[] | undefined;
  count?: number | undefined;
  until?: string | undefined;
}

export interface EventRecurrence {
  frequency: 'daily' | 'weekly';
  interval: number;
  /** Weekly: the days in week order (Monday first), the start's among them. Daily: empty. */
  daysOfWeek: Weekday[];
  /** How many occurrences, the first included. */
  count?: number;
  /** The last date an occurrence may start on, in the event's own zone (inclusive). */
  until?: string;
}

const startDateOf = (timing: EventTiming): Temporal.PlainDate =>
  timing.allDay
    ? Temporal.PlainDate.from(timing.startDate)
    : Temporal.PlainDateTime.from(timing.start).toPlainDate();

const weekdayOf = (date: Temporal.PlainDate): Weekday => weekdays[date.dayOfWeek - 1]!;

/** The fewest days between two starts of the series. */
function shortestGap(frequency: 'daily' | 'weekly', interval: number, days: Weekday[]): number {
  if (frequency === 'daily') return interval;
  const numbers = days.map((day) => weekdays.indexOf(day));
  const gaps = numbers.map((day, i) =>
    i === 0 ? day + 7 * interval - numbers.at(-1)! : day - numbers[i - 1]!,
  );
  return Math.min(...gaps);
}

/** Whether one occurrence ends after the next has begun, which providers refuse or show oddly. */
function overlapsNext(timing: EventTiming, gapDays: number): boolean {
  if (timing.allDay) {
    return (
      Temporal.PlainDate.from(timing.startDate).until(Temporal.PlainDate.from(timing.endDate)).days > gapDays
    );
  }
  const start = Temporal.PlainDateTime.from(timing.start);
  const next = start.add({ days: gapDays }).toZonedDateTime(timing.timeZone);
  return (
    Temporal.ZonedDateTime.compare(
      Temporal.PlainDateTime.from(timing.end).toZonedDateTime(timing.timeZone),
      next,
    ) > 0
  );
}

function untilDate(value: string, first: Temporal.PlainDate): Temporal.PlainDate {
  let date: Temporal.PlainDate;
  try {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new RangeError();
    date = Temporal.PlainDate.from(value, { overflow: 'reject' });
  } catch {
    throw invalidField('recurrence.until', 'recurrence.until must be a real date such as 2026-12-31.');
  }
  if (Temporal.PlainDate.compare(date, first) < 0) {
    throw invalidField('recurrence.until', 'recurrence.until must not be before the start.');
  }
  if (date.year > latestYear)
    throw invalidField('recurrence.until', `recurrence.until must be before ${latestYear + 1}.`);
  return date;
}

/** The rule a write asks for, checked against the event it starts with. */
export function parseRecurrence(input: RecurrenceInput, timing: EventTiming): EventRecurrence {
  const first = startDateOf(timing);
  const interval = input.interval ?? 1;
  if (input.count !== undefined && input.until !== undefined) {
    throw invalidField('recurrence.until', 'Give recurrence.count or recurrence.until, not both.');
  }
  if (input.frequency === 'daily' && input.daysOfWeek !== undefined) {
    throw invalidField('recurrence.daysOfWeek', 'recurrence.daysOfWeek is for weekly repeats only.');
  }
  const daysOfWeek =
    input.frequency === 'daily'
      ? []
      : weekdays.filter((day) => (input.daysOfWeek ?? [weekdayOf(first)]).includes(day));
  if (input.frequency === 'weekly' && !daysOfWeek.includes(weekdayOf(first))) {
    throw invalidField(
      'recurrence.daysOfWeek',
      `The event itself is the first occurrence, so recurrence.daysOfWeek must include the weekday of start (${weekdayOf(first)}).`,
    );
  }
  if (overlapsNext(timing, shortestGap(input.frequency, interval, daysOfWeek))) {
    throw invalidField('end', 'Each occurrence must end before the next one starts.');
  }
  return {
    frequency: input.frequency,
    interval,
    daysOfWeek,
    ...(input.count === undefined ? {} : { count: input.count }),
    ...(input.until === undefined ? {} : { until: untilDate(input.until, first).toString() }),
  };
}

/** Open series are written out this far where a definition must list dates (a VTIMEZONE). */
const openSeriesYears = 30;

/** A date no occurrence of the series starts after. */
export function seriesEndBound(recurrence: EventRecurrence, timing: EventTiming): Temporal.PlainDate {
  const first = startDateOf(timing);
  if (recurrence.until !== undefined) return Temporal.PlainDate.from(recurrence.until);
  if (recurrence.count === undefined) return first.add({ years: openSeriesYears });
  const perStep = Math.max(1, recurrence.daysOfWeek.length);
  const steps = Math.ceil(recurrence.count / perStep) * recurrence.interval;
  return first.add(recurrence.frequency === 'daily' ? { days: steps } : { weeks: steps });
}

const basicDate = (date: Temporal.PlainDate) => date.toString().replaceAll('-', '');

/**
 * The rule as an iCalendar RRULE value. UNTIL is inclusive; with a zoned start it must be UTC,
 * so it is the until date at the start's wall-clock time in the event's zone.
 */
export function rruleOf(recurrence: EventRecurrence, timing: EventTiming): string {
  const parts = [`FREQ=${recurrence.frequency === 'daily' ? 'DAILY' : 'WEEKLY'}`];
  if (recurrence.interval !== 1) parts.push(`INTERVAL=${recurrence.interval}`);
  if (recurrence.frequency === 'weekly') {
    parts.push(
      `BYDAY=${recurrence.daysOfWeek.map((day) => day.slice(0, 2).toUpperCase()).join(',')}`,
      'WKST=MO',
    );
  }
  if (recurrence.count !== undefined) parts.push(`COUNT=${recurrence.count}`);
  if (recurrence.until !== undefined) {
    const until = Temporal.PlainDate.from(recurrence.until);
    if (timing.allDay) parts.push(`UNTIL=${basicDate(until)}`);
    else {
      const at = until
        .toPlainDateTime(Temporal.PlainDateTime.from(timing.start).toPlainTime())
        .toZonedDateTime(timing.timeZone, { disambiguation: 'compatible' })
        .toInstant()
        .toString({ smallestUnit: 'second' });
      parts.push(`UNTIL=${at.replaceAll('-', '').replaceAll(':', '')}`);
    }
  }
  return parts.join(';');
}
