/**
 * A sync that ends, and is seen only whole, on both engines: a reader during a sync of several
 * batches sees the last complete state (version and occurrences), and the new state only once
 * the last batch is in; a sync past one of its bounds (rounds, items, bytes, time) fails with
 * its reason, backs off, logs the bound, and leaves the copy and nothing staged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type SyncLimits, syncLimits } from '../../src/domain/budget.ts';
import { copiesOf, copyKeyOf, occurrencesNear } from '../../src/store/calendarCopies.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import type { SyncLogEntry } from '../../src/sync/calendarSync.ts';
import { TestClock } from '../helpers/clock.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { at, batch, item, scriptedCopy, scriptedProvider, settings } from '../helpers/scriptedSync.ts';

const march = { startMs: Date.parse('2026-03-01T00:00:00Z'), endMs: Date.parse('2026-04-01T00:00:00Z') };

for (const engine of await enginesUnderTest()) {
  describe(`a sync seen only whole, within its bounds (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    before(async () => {
      handle = await engine.open();
    });
    after(() => handle.close());

    const copyOf = async (calendarId: string) => (await copiesOf(handle.db, [calendarId])).get(calendarId)!;
    const held = async (calendarId: string) =>
      (await occurrencesNear(handle.db, calendarId, march, 0)).map((o) => o.providerEventId).sort();
    const staged = async (calendarId: string) =>
      (
        await handle.db
          .selectFrom('copy_staged_items')
          .select('item_key')
          .where('copy_key', '=', copyKeyOf(handle.db, calendarId))
          .execute()
      ).length;

    it('serves the last complete sync while the next one is between batches, then all of it at once', async () => {
      const between = Promise.withResolvers<void>();
      const gate = Promise.withResolvers<void>();
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({ upserts: [item('a', [at('2026-03-10T09:00:00', 'a')])], nextState: 'one' });
        },
        async function* () {
          yield batch({ upserts: [item('b', [at('2026-03-11T09:00:00', 'b')])] });
          yield batch({ upserts: [item('c', [at('2026-03-12T09:00:00', 'c')])] });
          between.resolve();
          await gate.promise;
          yield batch({ upserts: [item('d', [at('2026-03-13T09:00:00', 'd')])], nextState: 'two' });
        },
      ]);
      const { calendarId, service } = await scriptedCopy(handle, engine.name, provider);
      const one = service('one');
      await one.runDue();
      const complete = await copyOf(calendarId);
      assert.deepEqual(await held(calendarId), ['a']);

      const second = one.syncNow(calendarId);
      await between.promise;
      const during = await copyOf(calendarId);
      assert.deepEqual(await held(calendarId), ['a'], 'the full sync’s first batches are not served');
      assert.equal(during.version, complete.version, 'a reader’s view stays valid');
      assert.equal(during.items, 1);
      assert.equal(await staged(calendarId), 2);

      gate.resolve();
      assert.equal(await second, 'synced');
      const after = await copyOf(calendarId);
      assert.deepEqual(await held(calendarId), ['b', 'c', 'd'], 'a removed by the full sync, the rest in');
      assert.ok(after.version > complete.version);
      assert.equal(after.items, 3);
      assert.equal(await staged(calendarId), 0, 'nothing left staged');
    });

    it('moves an incremental sync of several batches in whole: changes, removals, an item changed twice', async () => {
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({
            upserts: [
              item('a', [at('2026-03-10T09:00:00', 'a')]),
              item('b', [at('2026-03-11T09:00:00', 'b')]),
            ],
            nextState: 'one',
          });
        },
        async function* () {
          yield batch({ full: false, upserts: [item('a', [at('2026-03-10T10:00:00', 'a', 'A1')], 'v2')] });
          yield batch({
            full: false,
            removals: ['b'],
            upserts: [item('c', [at('2026-03-12T09:00:00', 'c')])],
          });
          yield batch({ full: false, upserts: [item('a', [at('2026-03-10T11:00:00', 'a', 'A2')], 'v3')] });
          yield batch({ full: false, removals: ['c'], nextState: 'two' });
        },
      ]);
      const { calendarId, service } = await scriptedCopy(handle, engine.name, provider);
      const one = service('one');
      await one.runDue();
      assert.equal(await one.syncNow(calendarId), 'synced');
      const occurrences = await occurrencesNear(handle.db, calendarId, march, 0);
      assert.deepEqual(
        occurrences.map((o) => [o.providerEventId, o.title]),
        [['a', 'A2']],
      );
      const copy = await copyOf(calendarId);
      assert.equal(copy.items, 1);
      assert.equal(copy.hasState, true);
    });

    it('clears what an interrupted sync staged with the next sync that completes, even of one batch', async () => {
      const stalled = Promise.withResolvers<void>();
      const gate = Promise.withResolvers<void>();
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({ upserts: [item('a', [at('2026-03-10T09:00:00', 'a')])] });
          stalled.resolve();
          await gate.promise;
          yield batch({ nextState: 'never' });
        },
        async function* () {
          yield batch({ upserts: [item('b', [at('2026-03-11T09:00:00', 'b')])], nextState: 'taken-over' });
        },
      ]);
      const { calendarId, service, clock } = await scriptedCopy(handle, engine.name, provider);
      const first = service('first');
      await reconcileCopies(handle.db, clock.now().epochMilliseconds);
      const interrupted = first.syncNow(calendarId);
      await stalled.promise;
      assert.equal(await staged(calendarId), 1);
      clock.advance({ milliseconds: settings.leaseMs + 1 });
      assert.equal(await service('second').syncNow(calendarId), 'synced');
      assert.equal(await staged(calendarId), 0, 'the stalled sync’s batch is gone');
      gate.resolve();
      assert.equal(await interrupted, 'busy', 'and the stalled sync, waking, writes nothing');
      assert.deepEqual(await held(calendarId), ['b']);
    });

    /** A provider that always has one more batch, each with a new item; `each` runs before every batch. */
    const endless = (each: () => void = () => {}) =>
      scriptedProvider([
        async function* () {
          yield batch({ upserts: [item('kept', [at('2026-03-09T09:00:00', 'kept')])], nextState: 'one' });
        },
        async function* () {
          for (let n = 0; ; n++) {
            each();
            yield batch({
              full: false,
              upserts: [item(`junk-${n}`, [at('2026-03-10T09:00:00', `junk-${n}`)])],
            });
          }
        },
      ]).provider;

    const bounded = async (
      provider: ReturnType<typeof endless>,
      limits: Partial<SyncLimits>,
      expected: { reason: string; bound: string },
      clock = new TestClock(),
    ) => {
      const logged: SyncLogEntry[] = [];
      const { calendarId, service } = await scriptedCopy(handle, engine.name, provider, {
        clock,
        deps: { limits: { ...syncLimits, ...limits }, log: (entry) => logged.push(entry) },
      });
      const one = service('one');
      await one.runDue();
      const before = await copyOf(calendarId);
      assert.equal(await one.syncNow(calendarId), 'failed');
      const copy = await copyOf(calendarId);
      assert.equal(copy.failureReason, expected.reason);
      assert.equal(copy.failures, 1);
      assert.ok(copy.nextSyncAt > clock.now().epochMilliseconds, 'tried again only after a backoff');
      assert.equal(copy.version, before.version, 'readers saw none of it');
      assert.deepEqual(await held(calendarId), ['kept']);
      assert.equal(await staged(calendarId), 0, 'what it staged is cleared');
      const failed = logged.find((entry) => entry.outcome === 'failed');
      assert.deepEqual([failed?.reason, failed?.bound], [expected.reason, expected.bound]);
    };

    it('stops a sync past its rounds', async () => {
      let batches = 0;
      await bounded(
        endless(() => {
          batches += 1;
        }),
        { rounds: 20 },
        { reason: 'too_large', bound: 'rounds' },
      );
      assert.equal(batches, 21, 'the batch past the bound was the last asked for');
    });

    it('stops a sync past its items', async () => {
      await bounded(endless(), { items: 10 }, { reason: 'too_large', bound: 'items' });
    });

    it('stops a sync past its bytes', async () => {
      await bounded(endless(), { bytes: 2_000 }, { reason: 'too_large', bound: 'bytes' });
    });

    it('stops a sync past its time', async () => {
      const clock = new TestClock();
      let syncing = false;
      const provider = endless(() => {
        if (syncing) clock.advance({ minutes: 1 });
        syncing = true;
      });
      await bounded(provider, { timeMs: 5 * 60_000 }, { reason: 'timeout', bound: 'timeMs' }, clock);
    });
  });
}
