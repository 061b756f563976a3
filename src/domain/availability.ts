/**
 * Busy time without details: the spans of busy, not cancelled occurrences (tentative ones too,
 * unless told otherwise), cut to the window and merged where they overlap or touch. Pure.
 */

import type { PlacedEvent, Span } from './occurrences.ts';
import type { TimeWindow } from './window.ts';

/** Busy time a synced copy answered with (times only), in epoch ns. */
export interface BusySpan {
  startNs: bigint;
  endNs: bigint;
}

/** Whether an occurrence blocks time: busy, not cancelled, and tentative only when that counts. */
const blocksTime = (
  event: Pick<PlacedEvent['event'], 'freeBusyStatus' | 'status'>,
  tentativeIsBusy: boolean,
): boolean =>
  event.freeBusyStatus === 'busy' &&
  event.status !== 'cancelled' &&
  (tentativeIsBusy || event.status !== 'tentative');

export interface BusyOptions {
  /** Whether tentative events count as busy (default true). */
  tentativeIsBusy?: boolean;
}

export function busyIntervals(
  events: readonly PlacedEvent[],
  window: TimeWindow,
  { tentativeIsBusy = true }: BusyOptions = {},
  copied: readonly BusySpan[] = [],
): Span[] {
  const windowStart = window.start.epochNanoseconds;
  const windowEnd = window.end.epochNanoseconds;
  const spans: [bigint, bigint][] = [];
  const blocking = events.filter((placed) => blocksTime(placed.event, tentativeIsBusy));
  for (const { startNs, endNs } of [...blocking, ...copied]) {
    const start = startNs > windowStart ? startNs : windowStart;
    const end = endNs < windowEnd ? endNs : windowEnd;
    if (start < end) spans.push([start, end]);
  }
  return mergedSpans(spans).map(([start, end]) => ({
    start: Temporal.Instant.fromEpochNanoseconds(start),
    end: Temporal.Instant.fromEpochNanoseconds(end),
  }));
}

/**
 * Spans as [start, end], merged where they overlap or touch, in order of start (sorted in place
 * first). The copies' busy time is merged so before it leaves the database (store/copyReads.ts).
 */
export function mergedSpans<T extends number | bigint>(spans: [T, T][]): [T, T][] {
  spans.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const merged: [T, T][] = [];
  for (const [start, end] of spans) {
    const last = merged.at(-1);
    if (last !== undefined && start <= last[1]) {
      if (end > last[1]) last[1] = end;
    } else merged.push([start, end]);
  }
  return merged;
}
