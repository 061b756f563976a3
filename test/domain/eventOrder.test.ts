/**
 * Merging calendars' ordered event lists: the whole merge and the first few equal sorting
 * everything in the one order (start, calendar, occurrence), ties and sub-millisecond starts included.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Event } from '../../src/domain/event.ts';
import {
  compareEvents,
  firstOrdered,
  mergeOrdered,
  type PlacedEvent,
  startMsOf,
} from '../../src/domain/occurrences.ts';

const placed = (calendarId: string, occurrenceId: string, startNs: bigint): PlacedEvent => ({
  startMs: startMsOf(startNs),
  startNs,
  endNs: startNs + 1n,
  event: { calendarId, occurrenceId } as Event,
});

const lists = fc
  .array(
    fc.array(
      fc.tuple(
        fc.constantFrom('occ_a', 'occ_b', 'occ_c', 'occ_d'),
        // Few distinct starts, some a nanosecond apart: many ties and sub-millisecond orders.
        fc.bigInt({ min: -3_000_001n, max: 3_000_001n }),
      ),
      { maxLength: 30 },
    ),
    { maxLength: 8 },
  )
  .map((calendars) =>
    calendars.map((events, c) =>
      events.map(([occurrence, ns], i) => placed(`cal_${c}`, `${occurrence}${i}`, ns)).sort(compareEvents),
    ),
  );

describe('ordered event lists', () => {
  it('merge into the order a sort gives, and the first n of it', () => {
    fc.assert(
      fc.property(lists, fc.nat({ max: 40 }), (calendars, n) => {
        const sorted = calendars.flat().sort(compareEvents);
        assert.deepEqual(mergeOrdered(calendars), sorted);
        assert.deepEqual(firstOrdered(calendars, n), sorted.slice(0, n));
      }),
      { numRuns: 500 },
    );
  });

  it('order by the instant first, even a nanosecond apart within one millisecond', () => {
    const [early, late] = [placed('cal_b', 'occ_1', 5_000_000n), placed('cal_a', 'occ_1', 5_000_001n)];
    assert.equal(early.startMs, late.startMs);
    assert.deepEqual(mergeOrdered([[late], [early]]), [early, late]);
  });
});
