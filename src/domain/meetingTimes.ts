/**
 * Free slots for a meeting: the earliest spans of a given length that lie wholly inside one
 * working period (local wall-clock times in the person's zone, so 09:00 stays 09:00 across a
 * daylight-saving change), inside the window, after the notice, and clear of busy time by the
 * buffer on each side. Slots do not overlap: the next one starts at or after the previous end.
 * Pure.
 */

import { invalidField } from '../errors.ts';
import { type Weekday, weekdays } from './eventRecurrence.ts';
import type { Span } from './occurrences.ts';
import type { TimeWindow } from './window.ts';

/** Candidate starts are local times on multiples of the step; each divides an hour. */
export const stepChoices = [5, 10, 15, 20, 30, 60] as const;
export type StepMinutes = (typeof stepChoices)[number];

/** HH:MM, 00:00 to 23:59, or 24:00 (the end of the day). */
export const localTimePattern = '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$';
const localTime = new RegExp(localTimePattern);

export interface WorkingHoursInput {
  days: readonly Weekday[];
  start: string;
  end: string;
}

export const defaultWorkingHours: readonly WorkingHoursInput[] = [
  { days: weekdays.slice(0, 5), start: '09:00', end: '17:00' },
];

interface LocalPeriod {
  /** Minutes after local midnight; `end` may be 1440. */
  start: number;
  end: number;
}

/** Per weekday, Monday first: the working periods of that day, in order, none overlapping. */
export type WorkingWeek = readonly (readonly LocalPeriod[])[];

/** Minutes after local midnight of an HH:MM time; anything else is refused naming the field. */
export function minutesOf(field: string, value: string): number {
  if (!localTime.test(value)) throw invalidField(field, `${field} must be a local time HH:MM, e.g. 09:00.`);
  return Number(value.slice(0, 2)) * 60 + Number(value.slice(3, 5));
}

/** The working week the entries describe; an end not after its start or periods overlapping on a day are refused. */
export function parseWorkingHours(entries: readonly WorkingHoursInput[], field: string): WorkingWeek {
  const days = weekdays.map(() => [] as Array<LocalPeriod & { entry: number }>);
  entries.forEach((entry, index) => {
    const start = minutesOf(`${field}.${index}.start`, entry.start);
    const end = minutesOf(`${field}.${index}.end`, entry.end);
    if (end <= start)
      throw invalidField(`${field}.${index}.end`, `${field}.${index}.end must be after its start.`);
    for (const day of entry.days) days[weekdays.indexOf(day)]!.push({ start, end, entry: index });
  });
  return days.map((periods, day) => {
    periods.sort((a, b) => a.start - b.start);
    periods.forEach((period, i) => {
      const before = periods[i - 1];
      if (before !== undefined && period.start < before.end) {
        throw invalidField(
          `${field}.${period.entry}`,
          `${field}.${period.entry} overlaps ${field}.${before.entry} on ${weekdays[day]}.`,
        );
      }
    });
    return periods.map(({ start, end }) => ({ start, end }));
  });
}

export interface MeetingQuery {
  window: TimeWindow;
  /** IANA zone of the working hours and of the step's alignment. */
  timeZone: string;
  week: WorkingWeek;
  durationMinutes: number;
  now: Temporal.Instant;
  /** Slots start no earlier than now plus this. */
  noticeMinutes: number;
  /** Free time needed before and after each slot. */
  bufferMinutes: number;
  stepMinutes: StepMinutes;
  limit: number;
  /** A further condition a slot free of `busy` must meet (a room free then); default any. */
  accept?: (slot: Span) => boolean;
}

const nsPerMinute = 60_000_000_000n;

/** The working periods as instants (epoch ns) over the local days the window touches, in order. */
function workingPeriods(query: MeetingQuery): Array<{ start: bigint; end: bigint }> {
  const { window, timeZone, week } = query;
  const last = window.end.toZonedDateTimeISO(timeZone).toPlainDate();
  const periods: Array<{ start: bigint; end: bigint }> = [];
  for (
    let date = window.start.toZonedDateTimeISO(timeZone).toPlainDate();
    Temporal.PlainDate.compare(date, last) <= 0;
    date = date.add({ days: 1 })
  ) {
    // A local time the zone skips moves forward, a repeated one is its first occurrence.
    const at = (minutes: number) =>
      date.toPlainDateTime().add({ minutes }).toZonedDateTime(timeZone).epochNanoseconds;
    for (const period of week[date.dayOfWeek - 1]!)
      periods.push({ start: at(period.start), end: at(period.end) });
  }
  return periods;
}

/** The first local time at or after `ns` on a multiple of the step. */
function alignUp(ns: bigint, timeZone: string, step: StepMinutes): bigint {
  const local = Temporal.Instant.fromEpochNanoseconds(ns).toZonedDateTimeISO(timeZone);
  const rounded =
    step === 60
      ? local.round({ smallestUnit: 'hour', roundingMode: 'ceil' })
      : local.round({ smallestUnit: 'minute', roundingIncrement: step, roundingMode: 'ceil' });
  return rounded.epochNanoseconds;
}

/**
 * The earliest free slots, at most `limit`, in order. `busy` is sorted and merged (as
 * `busyIntervals` gives it) and should reach `bufferMinutes` beyond the window. Busy spans are
 * walked with one pointer as the candidates advance, so the work is bounded by window / step.
 */
export function meetingTimes(busy: readonly Span[], query: MeetingQuery): Span[] {
  const buffer = BigInt(query.bufferMinutes) * nsPerMinute;
  const duration = BigInt(query.durationMinutes) * nsPerMinute;
  const step = BigInt(query.stepMinutes) * nsPerMinute;
  // After a slot, the next candidate on the step at or after its end.
  const afterSlot = ((duration + step - 1n) / step) * step;
  const blocked = busy.map((s) => ({
    start: s.start.epochNanoseconds - buffer,
    end: s.end.epochNanoseconds + buffer,
  }));
  const windowStart = query.window.start.epochNanoseconds;
  const windowEnd = query.window.end.epochNanoseconds;
  const notice = query.now.epochNanoseconds + BigInt(query.noticeMinutes) * nsPerMinute;
  let earliest = windowStart > notice ? windowStart : notice;
  let next = 0;
  const slots: Span[] = [];
  for (const period of workingPeriods(query)) {
    if (slots.length >= query.limit) break;
    const from = period.start > earliest ? period.start : earliest;
    const until = period.end < windowEnd ? period.end : windowEnd;
    if (from + duration > until) continue;
    let start = alignUp(from, query.timeZone, query.stepMinutes);
    while (start + duration <= until && slots.length < query.limit) {
      const end = start + duration;
      while (next < blocked.length && blocked[next]!.end <= start) next += 1;
      const slot = {
        start: Temporal.Instant.fromEpochNanoseconds(start),
        end: Temporal.Instant.fromEpochNanoseconds(end),
      };
      if ((next < blocked.length && blocked[next]!.start < end) || query.accept?.(slot) === false) {
        start += step;
        continue;
      }
      slots.push(slot);
      start += afterSlot;
    }
    // Candidates never go back in time (a DST gap can reorder periods), so the pointer stays right.
    earliest = until;
  }
  return slots;
}
