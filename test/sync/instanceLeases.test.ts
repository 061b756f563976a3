/**
 * Leases of an instance that is gone: every running instance says it is alive every few seconds;
 * a lease whose owner has fallen silent is taken at once (a sync asked for, a round), while a
 * live owner's lease keeps the calendar until it runs out. A stopped instance leaves no heartbeat.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { heartbeat, leaseDue, markDue, silentMs } from '../../src/store/copyLeases.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { at, batch, item, scriptedCopy, scriptedProvider, settings } from '../helpers/scriptedSync.ts';

for (const engine of await enginesUnderTest()) {
  describe(`leases of instances that are gone (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    before(async () => {
      handle = await engine.open();
    });
    after(() => handle.close());

    const synced = (state: string) =>
      async function* () {
        yield batch({ upserts: [item('a', [at('2026-03-10T09:00:00', 'a')])], nextState: state });
      };

    /** A copy synced once, then leased by `holder`'s round (which then says nothing more, or goes on). */
    async function leasedBy(holder: string) {
      const { provider, requests } = scriptedProvider([synced('one'), synced('two'), synced('three')]);
      const copy = await scriptedCopy(handle, engine.name, provider);
      await copy.service('first').runDue();
      const now = () => copy.clock.now().epochMilliseconds;
      await markDue(handle.db, copy.calendarId, now());
      await heartbeat(handle.db, holder, now());
      const leased = await leaseDue(handle.db, engine.name, holder, now(), settings.leaseMs, 100);
      assert.ok(leased.includes(copy.calendarId));
      return { ...copy, requests, now };
    }

    it('takes the lease of a silent instance at once, well before it runs out', async () => {
      const { calendarId, service, clock } = await leasedBy('crashed');
      assert.equal(await service('restarted').syncNow(calendarId), 'busy', 'just seen: still alive');
      clock.advance({ milliseconds: silentMs + 1 });
      assert.ok(silentMs + 1 < settings.leaseMs);
      assert.equal(await service('restarted').syncNow(calendarId), 'synced');
    });

    it('lets a round take a due calendar leased by a silent instance', async () => {
      const { calendarId, clock, now } = await leasedBy('killed');
      clock.advance({ milliseconds: silentMs + 1 });
      const taken = await leaseDue(handle.db, engine.name, 'restarted', now(), settings.leaseMs, 100);
      assert.ok(taken.includes(calendarId));
    });

    it('leaves a live instance’s lease alone until it runs out', async () => {
      const { calendarId, service, clock, now } = await leasedBy('alive');
      clock.advance({ milliseconds: silentMs + 1 });
      await heartbeat(handle.db, 'alive', now());
      assert.equal(await service('other').syncNow(calendarId), 'busy');
      assert.deepEqual(
        (await leaseDue(handle.db, engine.name, 'other', now(), settings.leaseMs, 100)).filter(
          (id) => id === calendarId,
        ),
        [],
      );
    });

    it('says it is alive while started, and nothing once stopped', async () => {
      const { provider } = scriptedProvider([synced('one')]);
      // Its first round may meet other tests' copies, sealed with their keys: not this test's concern.
      const { service } = await scriptedCopy(handle, engine.name, provider, {
        service: { onRoundError: () => {} },
      });
      const instance = service('heartbeating');
      const seen = async () =>
        (
          await handle.db
            .selectFrom('sync_instances')
            .select('owner')
            .where('owner', '=', 'heartbeating')
            .execute()
        ).length;
      instance.start(3_600_000);
      const deadline = Date.now() + 10_000;
      while ((await seen()) === 0) {
        assert.ok(Date.now() < deadline, 'no heartbeat');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await instance.stop();
      assert.equal(await seen(), 0);
    });
  });
}
