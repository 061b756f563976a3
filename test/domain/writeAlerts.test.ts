import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alertOffset } from '../../src/domain/alertOffset.ts';
import { checkWriteLimits, maxMinutesBefore, writeAlerts } from '../../src/domain/writeAlerts.ts';
import { isAppError } from '../../src/errors.ts';

const refusal = (run: () => unknown): [string, unknown] | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    assert.ok(isAppError(error));
    return [error.code, error.details?.field];
  }
};

describe('reminders a write sets', () => {
  it('reads offsets before the start in whole minutes, display by default', () => {
    assert.deepEqual(
      writeAlerts([
        { offset: '-PT15M' },
        { offset: '-P1DT2H', action: 'email' },
        { offset: 'PT0S' },
        { offset: '-P28D' },
      ]),
      [
        { minutesBefore: 15, action: 'display' },
        { minutesBefore: 1560, action: 'email' },
        { minutesBefore: 0, action: 'display' },
        { minutesBefore: maxMinutesBefore, action: 'display' },
      ],
    );
  });

  it('refuses offsets after the start, beyond four weeks, in seconds, in months, or not durations', () => {
    for (const offset of ['PT1M', '-P28DT1M', '-PT30S', '-P1M', '-P1W', 'P', 'soon']) {
      assert.deepEqual(
        refusal(() => writeAlerts([{ offset: '-PT5M' }, { offset }])),
        ['invalid_request', 'alerts[1].offset'],
        offset,
      );
    }
  });

  it('refuses before writing what the provider cannot hold', () => {
    const two = writeAlerts([{ offset: '-PT5M' }, { offset: '-PT1H', action: 'email' }]);
    assert.equal(
      refusal(() => checkWriteLimits('google', { alerts: two, conference: true })),
      undefined,
    );
    assert.deepEqual(
      refusal(() => checkWriteLimits('microsoft', { alerts: two })),
      ['unsupported_by_provider', 'alerts'],
    );
    assert.deepEqual(
      refusal(() => checkWriteLimits('microsoft', { alerts: [two[1]!] })),
      ['unsupported_by_provider', 'alerts[0].action'],
    );
    assert.equal(
      refusal(() => checkWriteLimits('microsoft', { alerts: [two[0]!], conference: true })),
      undefined,
    );
    assert.deepEqual(
      refusal(() => checkWriteLimits('caldav', { alerts: two })),
      ['unsupported_by_provider', 'alerts[1].action'],
    );
    assert.deepEqual(
      refusal(() => checkWriteLimits('caldav', { conference: true })),
      ['unsupported_by_provider', 'conference'],
    );
  });

  it('writes every offset in one form, balanced up to days', () => {
    assert.deepEqual([-900, -5400, -86400, -604800, 0, 600].map(alertOffset), [
      '-PT15M',
      '-PT1H30M',
      '-P1D',
      '-P7D',
      'PT0S',
      'PT10M',
    ]);
  });
});
