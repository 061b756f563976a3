/** The brief per-grant memory of what providers told of others' busy time: expiry, scope, bound. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BusyLookups } from '../../src/calendars/reads/busyLookups.ts';
import { TestClock } from '../helpers/clock.ts';

const window = {
  start: Temporal.Instant.from('2026-03-02T00:00:00Z'),
  end: Temporal.Instant.from('2026-03-03T00:00:00Z'),
};
const scope = { grantId: 'g1', accountId: 'a1', window };
const busy = [{ startNs: window.start.epochNanoseconds, endNs: window.end.epochNanoseconds }];

describe('busy lookups kept briefly', () => {
  it('keeps told and not-told addresses for a minute, for that grant, account and window only', () => {
    const clock = new TestClock('2026-03-01T12:00:00Z');
    const lookups = new BusyLookups(clock);
    lookups.keep(scope, ['gus@x.example', 'zed@x.example'], new Map([['gus@x.example', { busy }]]));
    const found = lookups.find(scope, ['gus@x.example', 'zed@x.example', 'mia@x.example']);
    assert.deepEqual(
      [...found.kept],
      [
        ['gus@x.example', { busy }],
        ['zed@x.example', undefined],
      ],
    );
    assert.deepEqual(found.missing, ['mia@x.example']);
    for (const other of [
      { ...scope, grantId: 'g2' },
      { ...scope, accountId: 'a2' },
      { ...scope, window: { ...window, end: window.end.add({ hours: 1 }) } },
    ])
      assert.deepEqual(lookups.find(other, ['gus@x.example']).missing, ['gus@x.example']);
    clock.advance({ seconds: 60 });
    assert.deepEqual(lookups.find(scope, ['gus@x.example']).missing, ['gus@x.example']);
  });

  it('holds at most its bound, the oldest going first', () => {
    const lookups = new BusyLookups(new TestClock('2026-03-01T12:00:00Z'), { maxEntries: 2 });
    for (const address of ['a@x.example', 'b@x.example', 'c@x.example'])
      lookups.keep(scope, [address], new Map());
    assert.deepEqual(lookups.find(scope, ['a@x.example', 'b@x.example', 'c@x.example']).missing, [
      'a@x.example',
    ]);
  });
});
