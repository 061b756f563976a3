/**
 * The read window: instants need Z or an explicit offset (no zone is assumed), impossible dates
 * are refused, end must follow start, and at most 744 elapsed hours lie between them, whatever
 * daylight-saving changes happen inside.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxWindowHours, parseInstant, parseWindow } from '../../src/domain/window.ts';
import { AppError } from '../../src/errors.ts';

/** Runs `fn`, expecting an AppError; returns its code and details. */
function refusal(fn: () => unknown): { code: string; details: unknown } {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    return { code: error.code, details: error.details };
  }
  assert.fail('expected a refusal');
}

describe('parseInstant', () => {
  const accepted: Array<[string, string]> = [
    ['2026-03-01T09:00:00Z', '2026-03-01T09:00:00Z'],
    ['2026-03-01T09:00Z', '2026-03-01T09:00:00Z'],
    ['2026-03-01T09:00:00+01:00', '2026-03-01T08:00:00Z'],
    ['2026-03-01T09:00:00-05:30', '2026-03-01T14:30:00Z'],
    ['2026-03-01T00:30:00+14:00', '2026-02-28T10:30:00Z'],
    ['2026-03-01T09:00:00+00:00', '2026-03-01T09:00:00Z'],
    ['2026-03-01T09:00:00.5Z', '2026-03-01T09:00:00.5Z'],
    ['2026-03-01T09:00:00.123+01:00', '2026-03-01T08:00:00.123Z'],
    ['2026-03-01T09:00:00.123456789Z', '2026-03-01T09:00:00.123456789Z'],
    ['2026-03-01t09:00:00z', '2026-03-01T09:00:00Z'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00Z'],
  ];
  for (const [input, instant] of accepted) {
    it(`reads ${input} as ${instant}`, () => {
      assert.equal(parseInstant('start', input).toString(), instant);
    });
  }

  const refused: Array<[string, string]> = [
    ['no offset', '2026-03-01T09:00:00'],
    ['no offset, fraction', '2026-03-01T09:00:00.000'],
    ['date only', '2026-03-01'],
    ['date only with Z', '2026-03-01Z'],
    ['impossible day', '2026-02-30T09:00:00Z'],
    ['29 February of a common year', '2026-02-29T09:00:00Z'],
    ['month 13', '2026-13-01T09:00:00Z'],
    ['hour 24', '2026-03-01T24:00:00Z'],
    ['hour 25', '2026-03-01T25:00:00Z'],
    ['minute 60', '2026-03-01T09:60:00Z'],
    ['offset of 24 hours', '2026-03-01T09:00:00+24:00'],
    ['offset without colon', '2026-03-01T09:00:00+0100'],
    ['offset with seconds', '2026-03-01T09:00:00+01:00:30'],
    ['hour-only offset', '2026-03-01T09:00:00+01'],
    ['ten fraction digits', '2026-03-01T09:00:00.1234567891Z'],
    ['zone annotation', '2026-03-01T09:00:00+01:00[Europe/Berlin]'],
    ['zone name instead of offset', '2026-03-01T09:00:00 Europe/Berlin'],
    ['space instead of T', '2026-03-01 09:00:00Z'],
    ['leading space', ' 2026-03-01T09:00:00Z'],
    ['trailing newline', '2026-03-01T09:00:00Z\n'],
    ['basic format', '20260301T090000Z'],
    ['extended year', '+002026-03-01T09:00:00Z'],
    ['week date', '2026-W10-1T09:00:00Z'],
    ['epoch number', '1772355600'],
    ['empty', ''],
    ['words', 'tomorrow'],
  ];
  for (const [what, input] of refused) {
    it(`refuses ${what} (${JSON.stringify(input)}) as window_invalid naming the field`, () => {
      assert.deepEqual(
        refusal(() => parseInstant('from', input)),
        { code: 'window_invalid', details: { field: 'from' } },
      );
    });
  }
});

describe('parseWindow', () => {
  const hours = (start: string, h: number, extraNs = 0) =>
    Temporal.Instant.from(start).add({ hours: h }).add({ nanoseconds: extraNs }).toString();

  it('keeps both instants', () => {
    const window = parseWindow('2026-03-02T00:00:00+01:00', '2026-03-03T00:00:00+01:00');
    assert.equal(window.start.toString(), '2026-03-01T23:00:00Z');
    assert.equal(window.end.toString(), '2026-03-02T23:00:00Z');
  });

  it('compares instants, not wall clocks: an end with a smaller local time may still be later', () => {
    const window = parseWindow('2026-03-02T10:00:00+05:00', '2026-03-02T06:00:00Z');
    assert.equal(window.end.since(window.start).total('minutes'), 60);
  });

  it('refuses an end equal to the start, also written with another offset', () => {
    assert.deepEqual(
      refusal(() => parseWindow('2026-03-02T10:00:00Z', '2026-03-02T10:00:00Z')),
      { code: 'window_invalid', details: { field: 'end' } },
    );
    assert.deepEqual(
      refusal(() => parseWindow('2026-03-02T10:00:00Z', '2026-03-02T11:00:00+01:00')),
      { code: 'window_invalid', details: { field: 'end' } },
    );
  });

  it('refuses an end before the start, and an end 1 ns before it', () => {
    assert.equal(
      refusal(() => parseWindow('2026-03-02T10:00:00Z', '2026-03-01T10:00:00Z')).code,
      'window_invalid',
    );
    assert.equal(
      refusal(() => parseWindow('2026-03-02T10:00:00.000000001Z', '2026-03-02T10:00:00Z')).code,
      'window_invalid',
    );
  });

  it('accepts 1 ns', () => {
    const window = parseWindow('2026-03-02T10:00:00Z', '2026-03-02T10:00:00.000000001Z');
    assert.equal(window.end.since(window.start).total('nanoseconds'), 1);
  });

  it('accepts exactly 744 elapsed hours and refuses 1 s or 1 ns more', () => {
    assert.equal(maxWindowHours, 744);
    const start = '2026-01-05T08:00:00Z';
    const window = parseWindow(start, hours(start, 744));
    assert.equal(window.end.toString(), '2026-02-05T08:00:00Z');
    for (const extraNs of [1_000_000_000, 1]) {
      assert.deepEqual(
        refusal(() => parseWindow(start, hours(start, 744, extraNs))),
        { code: 'window_too_long', details: { field: 'end', maxHours: 744 } },
      );
    }
  });

  it('measures elapsed time across the spring DST change (Europe/Berlin, 29 March 2026)', () => {
    // 1 March 00:00 CET to 1 April 01:00 CEST: 31 calendar days plus one local hour = 744 h.
    const window = parseWindow('2026-03-01T00:00:00+01:00', '2026-04-01T01:00:00+02:00');
    assert.equal(window.end.since(window.start).total('hours'), 744);
    // One second more is too long even though the wall clocks look like "31 days and 1 hour".
    assert.equal(
      refusal(() => parseWindow('2026-03-01T00:00:00+01:00', '2026-04-01T01:00:01+02:00')).code,
      'window_too_long',
    );
    // 31 local days over the spring change are only 743 elapsed hours: accepted.
    const shorter = parseWindow('2026-03-01T00:00:00+01:00', '2026-04-01T00:00:00+02:00');
    assert.equal(shorter.end.since(shorter.start).total('hours'), 743);
  });

  it('measures elapsed time across the autumn DST change (Europe/Berlin, 25 October 2026)', () => {
    // 31 local days over the autumn change are 745 elapsed hours: too long.
    assert.deepEqual(
      refusal(() => parseWindow('2026-10-01T00:00:00+02:00', '2026-11-01T00:00:00+01:00')),
      { code: 'window_too_long', details: { field: 'end', maxHours: 744 } },
    );
    // One local hour less is exactly 744 elapsed hours.
    const window = parseWindow('2026-10-01T00:00:00+02:00', '2026-10-31T23:00:00+01:00');
    assert.equal(window.end.since(window.start).total('hours'), 744);
  });

  it('checks start before end, and names each surface’s own fields', () => {
    const names = { start: 'from', end: 'until' };
    assert.deepEqual(
      refusal(() => parseWindow('2026-03-01', '2026-03-01T10:00:00Z', names)),
      { code: 'window_invalid', details: { field: 'from' } },
    );
    assert.deepEqual(
      refusal(() => parseWindow('2026-03-01T10:00:00Z', '2026-03-01T11:00:00', names)),
      { code: 'window_invalid', details: { field: 'until' } },
    );
    assert.deepEqual(
      refusal(() => parseWindow('2026-03-01T10:00:00Z', '2026-03-01T09:00:00Z', names)),
      { code: 'window_invalid', details: { field: 'until' } },
    );
    assert.deepEqual(
      refusal(() => parseWindow('2026-03-01T10:00:00Z', '2026-04-01T10:00:01Z', names)),
      { code: 'window_too_long', details: { field: 'until', maxHours: 744 } },
    );
  });

  it('does not depend on the process time zone', () => {
    const window = parseWindow('2026-03-29T00:00:00Z', '2026-03-30T00:00:00Z');
    assert.equal(window.end.since(window.start).total('hours'), 24);
  });
});
