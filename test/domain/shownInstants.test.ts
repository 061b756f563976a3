/**
 * An instant shown with a zone's offset, written out by arithmetic, is exactly Temporal's string:
 * in zones with DST, half-hour and 45-minute offsets, offsets in seconds (local mean time, before
 * 1900), at every offset change and the milliseconds around it, before 1970 and far ahead, in
 * any order (the memo of each zone's stretch is never asked in a friendly order).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { instantInZone } from '../../src/domain/time/shownInstants.ts';

const zones = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Sao_Paulo',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Pacific/Chatham',
  'Pacific/Apia',
  'Africa/Monrovia',
  'Europe/Amsterdam',
  'Antarctica/Troll',
  'Asia/Kathmandu',
];

const temporal = (ms: number, zone: string) =>
  Temporal.Instant.fromEpochMilliseconds(ms).toString({ smallestUnit: 'second', timeZone: zone });

describe('instants shown with a zone', () => {
  it('equals Temporal at any instant from 1800 to 2300, in any zone, in any order', () => {
    const from = Date.UTC(1800, 0, 1);
    const until = Date.UTC(2300, 0, 1);
    fc.assert(
      fc.property(fc.constantFrom(...zones), fc.integer({ min: from, max: until }), (zone, ms) => {
        assert.equal(instantInZone(Temporal.Instant.fromEpochMilliseconds(ms), zone), temporal(ms, zone));
      }),
      { seed: 24, numRuns: 20_000 },
    );
  });

  it('equals Temporal at every offset change and a millisecond and a second either side', () => {
    for (const zone of zones) {
      let at: Temporal.ZonedDateTime | null =
        Temporal.Instant.from('1850-01-01T00:00:00Z').toZonedDateTimeISO(zone);
      for (let n = 0; at !== null && n < 400 && at.year < 2100; n++) {
        const ms: number = at.epochMilliseconds;
        // Up to the change and back down: the stretch remembered after it must not reach before it.
        for (const near of [ms - 1000, ms - 1, ms, ms + 1, ms + 999, ms + 1000, ms + 1, ms, ms - 1])
          assert.equal(
            instantInZone(Temporal.Instant.fromEpochMilliseconds(near), zone),
            temporal(near, zone),
            `${zone} ${near}`,
          );
        at = at.getTimeZoneTransition('next');
      }
    }
  });

  it('stays exact past the zones it remembers at once (every zone there is, twice over)', () => {
    const all = Intl.supportedValuesOf('timeZone');
    assert.ok(all.length > 64);
    const at = [Date.UTC(2026, 2, 29, 0, 59, 59), Date.UTC(2026, 9, 25, 1, 0, 0), Date.UTC(1960, 0, 1)];
    for (let round = 0; round < 2; round++)
      for (const zone of all)
        for (const ms of at)
          assert.equal(
            instantInZone(Temporal.Instant.fromEpochMilliseconds(ms), zone),
            temporal(ms, zone),
            zone,
          );
  });

  it('writes years past 9999 and before year 0 as Temporal does', () => {
    for (const iso of ['+012026-03-29T01:30:00Z', '-000001-12-31T23:59:59Z', '0099-05-01T12:00:00Z'])
      for (const zone of ['UTC', 'Europe/Berlin']) {
        const at = Temporal.Instant.from(iso);
        assert.equal(instantInZone(at, zone), at.toString({ smallestUnit: 'second', timeZone: zone }));
      }
  });
});
