/**
 * A local time placed by a zone's offset steps is the instant Temporal's `compatible`
 * disambiguation gives: in gaps (moved forward), in repeated hours (the earlier), in half-hour
 * and 30-minute-DST zones, and a zone that skipped a whole day.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localOffsets, type OffsetStep } from '../../src/domain/time/localOffsets.ts';

/** The rule the read's query applies (store/calendarCopies.ts#placed): the first step the local time is before. */
function placeLocalMs(steps: readonly OffsetStep[], localMs: number): number {
  const step = steps.find((s) => localMs < s.untilLocalMs)!;
  return localMs - step.offsetMs;
}

const zones = [
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'America/Santiago',
  'Pacific/Apia',
  'UTC',
];

describe('local offsets', () => {
  it('place every local time as Temporal does, around every transition', () => {
    const span = { startMs: Date.UTC(2011, 0, 1), endMs: Date.UTC(2027, 0, 1) };
    for (const zone of zones) {
      const steps = localOffsets(zone, span);
      const around = steps.slice(0, -1).map((s) => s.untilLocalMs);
      for (const at of [Date.UTC(2020, 5, 1), ...around]) {
        for (let ms = at - 3 * 3_600_000; ms <= at + 3 * 3_600_000; ms += 5 * 60_000) {
          const local = Temporal.Instant.fromEpochMilliseconds(ms)
            .toZonedDateTimeISO('UTC')
            .toPlainDateTime();
          const expected = local.toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
          assert.equal(placeLocalMs(steps, ms), expected, `${zone} ${local}`);
        }
      }
    }
  });

  it('has one step without end where a zone does not change', () => {
    assert.deepEqual(localOffsets('Asia/Kolkata', { startMs: 0, endMs: Date.UTC(2030, 0, 1) }), [
      { offsetMs: 19_800_000, untilLocalMs: Number.POSITIVE_INFINITY },
    ]);
  });
});
