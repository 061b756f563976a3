/**
 * A read of a calendar whose copy has not completed its first sync is answered live, and starts
 * that sync at once instead of leaving it to a round (which takes a few calendars at a time): a
 * search of twenty new calendars otherwise lists each of them live for minutes while the rounds
 * work through them. A first sync backing off after a failure is not started by reads.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { at, batch, item, scriptedCopy, scriptedProvider } from '../helpers/scriptedSync.ts';

const window = {
  start: Temporal.Instant.from('2026-03-01T00:00:00Z'),
  end: Temporal.Instant.from('2026-03-31T00:00:00Z'),
};

for (const engine of await enginesUnderTest()) {
  describe(`a calendar's first sync, started by a read (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    before(async () => {
      handle = await engine.open();
    });
    after(() => handle.close());

    it('is started by the first read, which does not wait for it; the next read after it uses the copy', async () => {
      const started = Promise.withResolvers<'started'>();
      const gate = Promise.withResolvers<void>();
      const { provider, requests } = scriptedProvider([
        async function* () {
          started.resolve('started');
          await gate.promise;
          yield batch({ upserts: [item('a', [at('2026-03-10T09:00:00', 'a')])], nextState: 'one' });
        },
      ]);
      const { calendarId, service, clock } = await scriptedCopy(handle, engine.name, provider);
      const one = service('one');
      await reconcileCopies(handle.db, clock.now().epochMilliseconds);

      const first = await one.forRead([calendarId], window);
      assert.equal(first.size, 0, 'no copy yet: read live');
      // Without a sync started, nothing runs here and idle() settles first.
      assert.equal(await Promise.race([started.promise, one.idle().then(() => 'idle')]), 'started');
      assert.equal((await one.forRead([calendarId], window)).size, 0, 'not waited for');

      gate.resolve();
      await one.idle();
      assert.equal(requests.length, 1, 'one sync, however many reads');
      assert.equal((await one.forRead([calendarId], window)).get(calendarId)?.stale, false);
    });

    it('is not started by reads while it backs off after a failure', async () => {
      const { provider, requests } = scriptedProvider([
        async function* () {
          yield batch({});
          throw new AppError('provider_unavailable', 'down', { details: { reason: 'server_error' } });
        },
      ]);
      const { calendarId, service } = await scriptedCopy(handle, engine.name, provider);
      const one = service('one');
      await one.runDue();
      assert.equal(requests.length, 1);
      for (let i = 0; i < 3; i++) assert.equal((await one.forRead([calendarId], window)).size, 0);
      await one.idle();
      assert.equal(requests.length, 1, 'the backoff holds for reads');
    });
  });
}
