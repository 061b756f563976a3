/** nearWindow: the same answers as the Instant comparisons it was first written with, at every edge. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import type { TimeWindow } from '../../src/domain/window.ts';
import { nearWindow } from '../../src/providers/nearWindow.ts';

const day = Temporal.Duration.from({ hours: 24 });

/** The first implementation, by Instants. */
function byInstants(occurrence: ProviderOccurrence, window: TimeWindow): boolean {
  const timed = occurrence.timeZone !== undefined;
  const start = Temporal.PlainDateTime.from(occurrence.start).toZonedDateTime(occurrence.timeZone ?? 'UTC');
  const end = start.add(Temporal.Duration.from(occurrence.duration)).toInstant();
  const from = timed ? window.start : window.start.subtract(day);
  const to = timed ? window.end : window.end.add(day);
  const startsBeforeEnd = Temporal.Instant.compare(start.toInstant(), to) < 0;
  const endsAfterStart = end.equals(start.toInstant())
    ? Temporal.Instant.compare(end, from) >= 0
    : Temporal.Instant.compare(end, from) > 0;
  return startsBeforeEnd && endsAfterStart;
}

describe('nearWindow', () => {
  it('answers as the Instant comparisons for timed, floating, all-day and zero-length occurrences around the edges', () => {
    const window: TimeWindow = {
      start: Temporal.Instant.from('2026-03-29T00:30:00Z'),
      end: Temporal.Instant.from('2026-03-30T01:00:00Z'),
    };
    const zones = [undefined, 'UTC', 'Europe/Berlin', 'America/St_Johns', 'Pacific/Kiritimati'];
    const durations = ['PT0S', 'PT1S', 'PT30M', 'PT1H', 'P1D', 'P2D', 'PT25H'];
    let inside = 0;
    let checked = 0;
    const first = Temporal.PlainDateTime.from('2026-03-27T00:00:00');
    for (let minutes = 0; minutes < 5 * 24 * 60; minutes += 15) {
      const start = first.add({ minutes }).toString();
      for (const timeZone of zones)
        for (const duration of durations) {
          const occurrence = {
            providerEventId: 'e',
            start,
            duration,
            ...(timeZone !== undefined && { timeZone }),
          } as ProviderOccurrence;
          const expected = byInstants(occurrence, window);
          assert.equal(nearWindow(occurrence, window), expected, `${start} ${timeZone} ${duration}`);
          inside += Number(expected);
          checked++;
        }
    }
    assert.ok(inside > 0 && inside < checked);
  });
});
