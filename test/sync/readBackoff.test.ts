/**
 * A failing calendar's backoff holds for reads: while its next try lies ahead, reads answer from
 * the copy at once, marked stale, and ask the provider nothing; once the backoff has passed, the
 * next read tries again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { at, batch, item, scriptedCopy, scriptedProvider } from '../helpers/scriptedSync.ts';

const window = {
  start: Temporal.Instant.from('2026-03-01T00:00:00Z'),
  end: Temporal.Instant.from('2026-03-31T00:00:00Z'),
};

for (const engine of await enginesUnderTest()) {
  describe(`reads during a provider outage (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    before(async () => {
      handle = await engine.open();
    });
    after(() => handle.close());

    it('try the provider once per backoff, not once per read', async () => {
      const down = new AppError('provider_unavailable', 'down', { details: { reason: 'server_error' } });
      const failing = async function* () {
        yield batch({});
        throw down;
      };
      const { provider, requests } = scriptedProvider([
        async function* () {
          yield batch({ upserts: [item('a', [at('2026-03-10T09:00:00', 'a')])], nextState: 'one' });
        },
        ...Array.from({ length: 20 }, () => failing),
      ]);
      const { calendarId, service, clock } = await scriptedCopy(handle, engine.name, provider);
      const one = service('one');
      await one.runDue();
      clock.advance({ minutes: 2 });

      for (let read = 0; read < 10; read++) {
        const copy = (await one.forRead([calendarId], window)).get(calendarId);
        assert.equal(copy?.stale, true, 'answered from the copy, said stale');
        assert.equal(copy?.failureReason, 'provider_unavailable');
      }
      assert.equal(requests.length, 2, 'the first sync, then one try for ten reads');

      clock.advance({ seconds: 31 });
      await one.forRead([calendarId], window);
      assert.equal(requests.length, 3, 'the backoff passed: the next read tries again');
      await one.forRead([calendarId], window);
      assert.equal(requests.length, 3, 'and the doubled backoff holds again');
    });
  });
}
