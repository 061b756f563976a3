/**
 * Whether an occurrence belongs to the requested window. Zoned occurrences are exact; floating
 * and all-day ones cannot be placed without a zone, so they count when they come within 26 hours
 * of the window (any zone is at most 14 hours from UTC) and the caller filters them precisely.
 */
import type { TimeWindow } from '../window.ts';
import { orderOf, type Point } from './times.ts';

export const unplacedSlackMs = 26 * 3600 * 1000;

function endOf(point: Point, span: Temporal.Duration): Point {
  if (point.kind === 'zoned') return { kind: 'zoned', zdt: point.zdt.add(span) };
  if (point.kind === 'floating') return { kind: 'floating', local: point.local.add(span) };
  return { kind: 'date', date: point.date.add(span) };
}

/** Overlap with [start, end); a zero-length occurrence counts when start ≤ it < end. */
export function inWindow(point: Point, span: Temporal.Duration, window: TimeWindow): boolean {
  const slack = point.kind === 'zoned' ? 0 : unplacedSlackMs;
  const from = window.start.epochMilliseconds - slack;
  const to = window.end.epochMilliseconds + slack;
  const start = orderOf(point);
  if (span.sign === 0) return from <= start && start < to;
  return start < to && orderOf(endOf(point, span)) > from;
}

/** An upper bound (ms) of how long a nominal span can last (days of up to 25 hours). */
export function longestMs(span: Temporal.Duration): number {
  const days = span.weeks * 7 + span.days;
  return (days * 25 * 3600 + span.hours * 3600 + span.minutes * 60 + span.seconds) * 1000;
}
