/**
 * Busy time without details: the spans of busy, not cancelled occurrences, cut to the window and
 * merged where they overlap or touch. Pure.
 */
import type { TimeWindow } from '../calendars/provider.ts';
import type { PlacedEvent, Span } from './occurrences.ts';

const later = (a: Temporal.Instant, b: Temporal.Instant) => (Temporal.Instant.compare(a, b) >= 0 ? a : b);
const earlier = (a: Temporal.Instant, b: Temporal.Instant) => (Temporal.Instant.compare(a, b) <= 0 ? a : b);

export function busyIntervals(events: readonly PlacedEvent[], window: TimeWindow): Span[] {
  const spans = events
    .filter((e) => e.event.freeBusyStatus === 'busy' && e.event.status !== 'cancelled')
    .map((e) => ({ start: later(e.start, window.start), end: earlier(e.end, window.end) }))
    .filter((s) => Temporal.Instant.compare(s.start, s.end) < 0)
    .sort((a, b) => Temporal.Instant.compare(a.start, b.start));
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last !== undefined && Temporal.Instant.compare(span.start, last.end) <= 0) {
      last.end = later(last.end, span.end);
    } else {
      merged.push({ ...span });
    }
  }
  return merged;
}
