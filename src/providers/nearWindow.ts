/**
 * Whether an occurrence belongs to a window as adapters report it: timed occurrences must
 * overlap it; floating and all-day ones may be a day off (the core places them with a zone).
 */
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import type { TimeWindow } from '../domain/window.ts';

const dayNs = 86_400_000_000_000n;

/** Compared as epoch nanoseconds: every occurrence of a sync passes here, Instants cost more. */
export function nearWindow(occurrence: ProviderOccurrence, window: TimeWindow): boolean {
  const timed = occurrence.timeZone !== undefined;
  const start = Temporal.PlainDateTime.from(occurrence.start).toZonedDateTime(occurrence.timeZone ?? 'UTC');
  const startNs = start.epochNanoseconds;
  const endNs = start.add(Temporal.Duration.from(occurrence.duration)).epochNanoseconds;
  const fromNs = timed ? window.start.epochNanoseconds : window.start.epochNanoseconds - dayNs;
  const toNs = timed ? window.end.epochNanoseconds : window.end.epochNanoseconds + dayNs;
  // A zero-length occurrence is in the window when it starts inside it.
  return startNs < toNs && (endNs === startNs ? endNs >= fromNs : endNs > fromNs);
}
