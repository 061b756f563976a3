/**
 * Splitting a series at one of its occurrences (scope "following"): the old rule gets an UNTIL
 * just before that occurrence's start, in the form the series' start has, so the occurrences
 * before it stay exactly as they were and none from it on remain; a new series from it on keeps
 * the rule, with a COUNT less the occurrences before (an UNTIL, or no end, as it was). Pure.
 */

import ICAL from 'ical.js';
import type { SeriesException } from './eventChanges.ts';
import type { ProviderOccurrence } from './providerFacts.ts';

const basic = (text: string) => text.replaceAll('-', '').replaceAll(':', '');

/**
 * The UNTIL (inclusive) that ends a series just before `named`: the day before for an all-day
 * series; a second before for a timed one — in UTC for a zoned start (its own offset, so a DST
 * change between the first occurrence and this one does not shift it), local for a floating one.
 */
export function untilBefore(
  named: Pick<ProviderOccurrence, 'start' | 'timeZone' | 'showWithoutTime'>,
): string {
  const start = Temporal.PlainDateTime.from(named.start);
  if (named.showWithoutTime) return basic(start.toPlainDate().subtract({ days: 1 }).toString());
  if (named.timeZone === undefined) return basic(start.subtract({ seconds: 1 }).toString());
  const instant = start
    .toZonedDateTime(named.timeZone, { disambiguation: 'compatible' })
    .toInstant()
    .subtract({ seconds: 1 });
  return basic(instant.toString({ smallestUnit: 'second' }));
}

/** An RRULE value ending at `until`: its COUNT or UNTIL replaced, every other part kept. */
export function ruleEndingAt(rule: string, until: string): string {
  const kept = rule.split(';').filter((part) => part !== '' && !/^(COUNT|UNTIL)=/i.test(part));
  return [...kept, `UNTIL=${until}`].join(';');
}

/** A recurrence id (instant, floating date-time or date) as a point to compare by. */
function pointOf(recurrenceId: string): number | undefined {
  for (const read of [
    () => Temporal.Instant.from(recurrenceId).epochMilliseconds,
    () => Temporal.PlainDateTime.from(recurrenceId).toZonedDateTime('UTC').epochMilliseconds,
  ]) {
    try {
      return read();
    } catch {}
  }
  return undefined;
}

/**
 * The exceptions a split at `recurrenceId` would lose: those at or after it, and any whose time
 * cannot be told (kept on the safe side).
 */
export function exceptionsFrom(
  exceptions: readonly SeriesException[],
  recurrenceId: string,
): SeriesException[] {
  const split = pointOf(recurrenceId);
  return exceptions.filter((exception) => {
    const point = pointOf(exception.recurrenceId);
    return split === undefined || point === undefined || point >= split;
  });
}

/** The occurrences an RRULE makes from `first` (local date or date-time) before `from`, at most `limit`. */
function occurrencesBefore(rule: string, first: string, from: string, limit: number): number {
  const time = (local: string) =>
    local.length === 10 ? ICAL.Time.fromDateString(local) : ICAL.Time.fromDateTimeString(local);
  const iterator = ICAL.Recur.fromString(rule).iterator(time(first));
  const end = time(first.length === 10 ? from.slice(0, 10) : from);
  let before = 0;
  for (let next = iterator.next(); next && next.compare(end) < 0 && before < limit; next = iterator.next()) {
    before += 1;
  }
  return before;
}

/**
 * The rule of the series that goes on from `from` (the named occurrence's local start; `first`
 * is the series' own, both dates for an all-day series): COUNT less the occurrences before.
 */
export function ruleFollowing(rule: string, first: string, from: string): string {
  const count = /(?:^|;)COUNT=(\d+)/i.exec(rule);
  if (count === null) return rule;
  const total = Number(count[1]);
  const left = total - occurrencesBefore(rule, first, from, total);
  return rule.replace(/COUNT=\d+/i, `COUNT=${Math.max(left, 1)}`);
}
