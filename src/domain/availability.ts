/**
 * Busy time without details: the spans of busy, not cancelled occurrences (tentative ones too,
 * unless told otherwise), cut to the window and merged where they overlap or touch. Pure.
 */

import type { PlacedEvent, Span } from './occurrences.ts';
import type { TimeWindow } from './window.ts';

interface NsSpan {
  start: bigint;
  end: bigint;
}

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
  const spans: NsSpan[] = [];
  const blocking = events.filter((placed) => blocksTime(placed.event, tentativeIsBusy));
  for (const { startNs, endNs } of [...blocking, ...copied]) {
    const start = startNs > windowStart ? startNs : windowStart;
    const end = endNs < windowEnd ? endNs : windowEnd;
    if (start < end) spans.push({ start, end });
  }
  spans.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const merged: NsSpan[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last !== undefined && span.start <= last.end) {
      if (span.end > last.end) last.end = span.end;
    } else {
      merged.push({ ...span });
    }
  }
  return merged.map((s) => ({
    start: Temporal.Instant.fromEpochNanoseconds(s.start),
    end: Temporal.Instant.fromEpochNanoseconds(s.end),
  }));
}
