/**
 * How a new event repeats: every n days; every n weeks on chosen weekdays; every n months on the
 * start's day of the month or on its weekday at one position (the second Tuesday, the last
 * Friday); every n years on the start's date; a number of times, until a date, or without end.
 * These are the rules every provider holds alike (an iCalendar RRULE, Google's recurrence lines,
 * Graph's patternedRecurrence), so a series reads back the same everywhere. The event itself is
 * always the first occurrence. Pure.
 */

import { AppError, invalidField } from '../errors.ts';
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

export const frequencies = ['daily', 'weekly', 'monthly', 'yearly'] as const;
export type Frequency = (typeof frequencies)[number];

/** Which of a month's weekdays: Graph's week index; in an RRULE the ordinal 1 to 4, or -1. */
export const positions = ['first', 'second', 'third', 'fourth', 'last'] as const;
export type Position = (typeof positions)[number];

export const maxInterval = 99;
export const maxOccurrences = 730;
const latestYear = 2199;
/** Days every month has; later ones are refused for monthly rules (see `patternOf`). */
const daysInEveryMonth = 28;

export interface RecurrenceInput {
  frequency: Frequency;
  interval?: number | undefined;
  daysOfWeek?: Weekday[] | undefined;
  weekdayPosition?: { position: Position; day: Weekday } | undefined;
  count?: number | undefined;
  until?: string | undefined;
}

export interface EventRecurrence {
  frequency: Frequency;
  interval: number;
  /**
   * Weekly: the days in week order (Monday first), the start's among them. Monthly by
   * position: the start's weekday. Otherwise empty.
   */
  daysOfWeek: Weekday[];
  /** Monthly by position: which of the month's such weekdays the start is. */
  position?: Position;
  /** Monthly by day (1 to 28) and yearly: the start's day of the month. */
  dayOfMonth?: number;
  /** Yearly: the start's month (1 to 12). */
  month?: number;
  /** How many occurrences, the first included. */
  count?: number;
  /** The last date an occurrence may start on, in the event's own zone (inclusive). */
  until?: string;
}

type Pattern = Pick<EventRecurrence, 'frequency' | 'daysOfWeek' | 'position' | 'dayOfMonth' | 'month'>;

const startDateOf = (timing: EventTiming): Temporal.PlainDate =>
  timing.allDay
    ? Temporal.PlainDate.from(timing.startDate)
    : Temporal.PlainDateTime.from(timing.start).toPlainDate();

const weekdayOf = (date: Temporal.PlainDate): Weekday => weekdays[date.dayOfWeek - 1]!;

/** The positions `date` holds among its month's days of that weekday (the fourth may be the last). */
function positionsOf(date: Temporal.PlainDate): Position[] {
  const nth = Math.ceil(date.day / 7);
  return positions.filter((position, index) =>
    position === 'last' ? date.day + 7 > date.daysInMonth : index + 1 === nth,
  );
}

/** The day of `position` among the weekdays `day` of one month. */
function positionDate(month: Temporal.PlainYearMonth, day: Weekday, position: Position): Temporal.PlainDate {
  const wanted = weekdays.indexOf(day) + 1;
  if (position === 'last') {
    const last = month.toPlainDate({ day: month.daysInMonth });
    return last.subtract({ days: (last.dayOfWeek - wanted + 7) % 7 });
  }
  const firstDay = month.toPlainDate({ day: 1 });
  return firstDay.add({ days: ((wanted - firstDay.dayOfWeek + 7) % 7) + 7 * positions.indexOf(position) });
}

/** A start whose day some months (or years) lack: RFC 5545 skips those, Outlook moves to the last day. */
const notInEveryMonth = (message: string) =>
  new AppError('invalid_request', message, { details: { field: 'start', reason: 'day_not_in_every_month' } });

function patternOf(input: RecurrenceInput, first: Temporal.PlainDate): Pattern {
  const { frequency } = input;
  if (frequency !== 'weekly' && input.daysOfWeek !== undefined) {
    throw invalidField('recurrence.daysOfWeek', 'recurrence.daysOfWeek is for weekly repeats only.');
  }
  if (frequency !== 'monthly' && input.weekdayPosition !== undefined) {
    throw invalidField(
      'recurrence.weekdayPosition',
      'recurrence.weekdayPosition is for monthly repeats only.',
    );
  }
  if (frequency === 'daily') return { frequency, daysOfWeek: [] };
  if (frequency === 'weekly') {
    const daysOfWeek = weekdays.filter((day) => (input.daysOfWeek ?? [weekdayOf(first)]).includes(day));
    if (!daysOfWeek.includes(weekdayOf(first))) {
      throw invalidField(
        'recurrence.daysOfWeek',
        `The event itself is the first occurrence, so recurrence.daysOfWeek must include the weekday of start (${weekdayOf(first)}).`,
      );
    }
    return { frequency, daysOfWeek };
  }
  if (frequency === 'yearly') {
    if (first.month === 2 && first.day === 29) {
      throw notInEveryMonth(
        'A yearly repeat cannot start on 29 February: most years lack that day, and calendars disagree on what to do then.',
      );
    }
    return { frequency, daysOfWeek: [], dayOfMonth: first.day, month: first.month };
  }
  const byPosition = input.weekdayPosition;
  if (byPosition === undefined) {
    if (first.day > daysInEveryMonth) {
      throw notInEveryMonth(
        `A monthly repeat cannot be on day ${first.day}: some months lack it, and calendars disagree on what to do then. Use recurrence.weekdayPosition (such as the last ${weekdayOf(first)}), or start on the 1st to the ${daysInEveryMonth}th.`,
      );
    }
    return { frequency, daysOfWeek: [], dayOfMonth: first.day };
  }
  if (byPosition.day !== weekdayOf(first)) {
    throw invalidField(
      'recurrence.weekdayPosition.day',
      `The event itself is the first occurrence, so recurrence.weekdayPosition.day must be the weekday of start (${weekdayOf(first)}).`,
    );
  }
  const held = positionsOf(first);
  if (!held.includes(byPosition.position)) {
    throw invalidField(
      'recurrence.weekdayPosition.position',
      `The event itself is the first occurrence, and start is the ${held.join(' and the ')} ${weekdayOf(first)} of its month.`,
    );
  }
  return { frequency, daysOfWeek: [byPosition.day], position: byPosition.position };
}

/** The fewest days any run of `months` consecutive months has (February of a common year). */
function shortestMonths(months: number): number {
  const starts = Array.from({ length: 12 }, (_, index) =>
    Temporal.PlainDate.from({ year: 2027, month: index + 1, day: 1 }),
  );
  return Math.min(...starts.map((start) => start.until(start.add({ months })).days));
}

/** The fewest days between two starts of the series. */
function shortestGap(pattern: Pattern, interval: number): number {
  switch (pattern.frequency) {
    case 'daily':
      return interval;
    case 'weekly': {
      const numbers = pattern.daysOfWeek.map((day) => weekdays.indexOf(day));
      const gaps = numbers.map((day, i) =>
        i === 0 ? day + 7 * interval - numbers.at(-1)! : day - numbers[i - 1]!,
      );
      return Math.min(...gaps);
    }
    case 'monthly': {
      const months = shortestMonths(interval);
      // The same weekday is whole weeks apart, and moves at most six days within its month.
      return pattern.position === undefined ? months : Math.ceil((months - 6) / 7) * 7;
    }
    case 'yearly':
      return 365 * interval;
  }
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

/** The date the `count`th occurrence starts on. */
function lastStart(
  recurrence: EventRecurrence,
  first: Temporal.PlainDate,
  count: number,
): Temporal.PlainDate {
  const steps = (count - 1) * recurrence.interval;
  switch (recurrence.frequency) {
    case 'daily':
      return first.add({ days: steps });
    case 'weekly': {
      const days = recurrence.daysOfWeek.map((day) => weekdays.indexOf(day));
      const index = days.indexOf(first.dayOfWeek - 1) + count - 1;
      const weeks = Math.floor(index / days.length) * recurrence.interval;
      return first.add({ weeks }).add({ days: days[index % days.length]! - (first.dayOfWeek - 1) });
    }
    case 'monthly': {
      const { position } = recurrence;
      if (position === undefined) return first.add({ months: steps });
      return positionDate(
        first.toPlainYearMonth().add({ months: steps }),
        recurrence.daysOfWeek[0]!,
        position,
      );
    }
    case 'yearly':
      return first.add({ years: steps });
  }
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
  const pattern = patternOf(input, first);
  if (overlapsNext(timing, shortestGap(pattern, interval))) {
    throw invalidField('end', 'Each occurrence must end before the next one starts.');
  }
  const recurrence: EventRecurrence = { ...pattern, interval };
  if (input.count !== undefined) {
    if (lastStart(recurrence, first, input.count).year > latestYear) {
      throw invalidField(
        'recurrence.count',
        `recurrence.count is too high: the last occurrence must start before ${latestYear + 1}.`,
      );
    }
    recurrence.count = input.count;
  }
  if (input.until !== undefined) recurrence.until = untilDate(input.until, first).toString();
  return recurrence;
}

/** Open series are written out this far where a definition must list dates (a VTIMEZONE). */
const openSeriesYears = 30;

/** A date no occurrence of the series starts after. */
export function seriesEndBound(recurrence: EventRecurrence, timing: EventTiming): Temporal.PlainDate {
  const first = startDateOf(timing);
  if (recurrence.until !== undefined) return Temporal.PlainDate.from(recurrence.until);
  if (recurrence.count === undefined) return first.add({ years: openSeriesYears });
  return lastStart(recurrence, first, recurrence.count);
}
