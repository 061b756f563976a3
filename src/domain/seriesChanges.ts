/**
 * Changing a whole series' times or rule (update_event with scope "series"). The client gives
 * new times for one occurrence (the one it named, or the first): every occurrence moves by the
 * same local shift, so the series keeps its local time across DST changes, and keeps its zone.
 * A move to another day needs the rule restated, because a rule names weekdays or days of the
 * month that would not follow. A series holding occurrences changed or cancelled on their own
 * is not moved at all: providers strand them on times the series no longer has, or drop them,
 * and the person's own changes would be lost without a word. Pure.
 */

import { AppError, invalidField } from '../errors.ts';
import type { SeriesException } from './eventChanges.ts';
import { type EventRecurrence, parseRecurrence, type RecurrenceInput } from './eventRecurrence.ts';
import type { EventTiming } from './eventTiming.ts';
import type { ProviderOccurrence } from './providerFacts.ts';

export interface SeriesChange {
  /** The series' first occurrence, moved or as it is. */
  timing: EventTiming;
  recurrence?: EventRecurrence;
}

/** An occurrence as a write's timing: whole days, or local times in its zone. */
export function timingOfOccurrence(occurrence: ProviderOccurrence): EventTiming {
  const start = Temporal.PlainDateTime.from(occurrence.start);
  const duration = Temporal.Duration.from(occurrence.duration);
  if (occurrence.showWithoutTime) {
    const date = start.toPlainDate();
    return { allDay: true, startDate: date.toString(), endDate: date.add(duration).toString() };
  }
  if (occurrence.timeZone === undefined) {
    throw new AppError(
      'recurring_event',
      'This series has floating times (no time zone), so it cannot be moved here; ask the user to move it in their calendar.',
    );
  }
  const zoned = start.toZonedDateTime(occurrence.timeZone);
  return {
    allDay: false,
    start: start.toString(),
    end: zoned.add(duration).toPlainDateTime().toString(),
    timeZone: occurrence.timeZone,
  };
}

const startDateOf = (timing: EventTiming): string =>
  timing.allDay ? timing.startDate : timing.start.slice(0, 10);

/** A local time that exists exactly once in the zone (not skipped or repeated by a DST change). */
function existingLocal(local: Temporal.PlainDateTime, zone: string): string {
  try {
    local.toZonedDateTime(zone, { disambiguation: 'reject' });
  } catch {
    throw invalidField(
      'start',
      `The series' first occurrence would be at ${local.toString()}, a local time that ${zone} skips or repeats; choose another time.`,
    );
  }
  return local.toString();
}

/** `first` moved as `moved` moves `named` (all three as write timings). */
function shifted(first: EventTiming, named: EventTiming, moved: EventTiming): EventTiming {
  if (first.allDay || named.allDay || moved.allDay) {
    if (!(first.allDay && named.allDay && moved.allDay)) {
      throw invalidField('start', 'A series stays all-day or timed: give the new times in the form it has.');
    }
    const days = Temporal.PlainDate.from(named.startDate).until(moved.startDate).days;
    const length = Temporal.PlainDate.from(moved.startDate).until(moved.endDate).days;
    const start = Temporal.PlainDate.from(first.startDate).add({ days });
    return { allDay: true, startDate: start.toString(), endDate: start.add({ days: length }).toString() };
  }
  if (moved.timeZone !== first.timeZone) {
    throw invalidField(
      'timeZone',
      `A series keeps its time zone (${first.timeZone}): give the new times in it.`,
    );
  }
  const shift = Temporal.PlainDateTime.from(named.start).until(moved.start, { largestUnit: 'days' });
  const length = Temporal.PlainDateTime.from(moved.start).until(moved.end, { largestUnit: 'days' });
  const start = Temporal.PlainDateTime.from(first.start).add(shift);
  return {
    allDay: false,
    start: existingLocal(start, first.timeZone),
    end: existingLocal(start.add(length), first.timeZone),
    timeZone: first.timeZone,
  };
}

/**
 * What a series write sets: `first` is the series' first occurrence, `named` the one the client
 * gave new times for, `moved` those times, `rule` a restated rule (checked as create_event checks it).
 */
export function planSeriesChange(
  first: ProviderOccurrence,
  named: ProviderOccurrence,
  moved: EventTiming | undefined,
  rule: RecurrenceInput | undefined,
): SeriesChange {
  const current = timingOfOccurrence(first);
  const timing = moved === undefined ? current : shifted(current, timingOfOccurrence(named), moved);
  if (rule === undefined) {
    if (startDateOf(timing) !== startDateOf(current)) {
      throw new AppError(
        'invalid_request',
        `Moving a series to another day needs its rule restated in recurrence (as for create_event), for a first occurrence on ${startDateOf(timing)}.`,
        { details: { field: 'recurrence', reason: 'series_date_change' } },
      );
    }
    return { timing };
  }
  return { timing, recurrence: parseRecurrence(rule, timing) };
}

/** How many exceptions a refusal lists; the count says how many there are in all. */
const listedExceptions = 20;

/** The refusal of a series change, naming the occurrences that stand apart from the rule. */
export function exceptionsRefusal(
  exceptions: readonly SeriesException[],
  occurrenceIdOf: (recurrenceId: string) => string,
): AppError {
  const listed = exceptions.slice(0, listedExceptions).map((exception) => ({
    occurrenceId: occurrenceIdOf(exception.recurrenceId),
    originalStart: exception.recurrenceId,
    kind: exception.kind,
  }));
  const kinds = [...new Set(exceptions.map((exception) => exception.kind))].join(', ');
  return new AppError(
    'series_has_exceptions',
    `${exceptions.length} occurrence(s) of this series stand apart from its rule (${kinds}); moving the series or changing its rule would lose or strand them, so nothing was changed. Ask the user to change the series in their calendar, or change occurrences one by one (scope "occurrence").`,
    { details: { count: exceptions.length, exceptions: listed } },
  );
}
