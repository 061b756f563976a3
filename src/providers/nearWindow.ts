/**
 * Whether an occurrence belongs to a window as adapters report it: timed occurrences must
 * overlap it; floating and all-day ones may be a day off (the core places them with a zone).
 */
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import type { TimeWindow } from '../domain/window.ts';

const day = Temporal.Duration.from({ hours: 24 });

export function nearWindow(occurrence: ProviderOccurrence, window: TimeWindow): boolean {
  const timed = occurrence.timeZone !== undefined;
  const start = Temporal.PlainDateTime.from(occurrence.start).toZonedDateTime(occurrence.timeZone ?? 'UTC');
  const end = start.add(Temporal.Duration.from(occurrence.duration)).toInstant();
  const from = timed ? window.start : window.start.subtract(day);
  const to = timed ? window.end : window.end.add(day);
  const startsBeforeEnd = Temporal.Instant.compare(start.toInstant(), to) < 0;
  // A zero-length occurrence is in the window when it starts inside it.
  const endsAfterStart = end.equals(start.toInstant())
    ? Temporal.Instant.compare(end, from) >= 0
    : Temporal.Instant.compare(end, from) > 0;
  return startsBeforeEnd && endsAfterStart;
}
