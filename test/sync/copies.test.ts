/**
 * The synced copies on both engines: copies follow the grants (created at the highest level,
 * deleted with the last grant or the membership), a sync's batches each in one transaction with
 * the position saved only with the last (the others staged until then), a full sync removing
 * what it did not see, leases that keep two syncs of one calendar apart and pass on when one
 * dies, and failures that keep the copy.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import type { CalendarProvider } from '../../src/providers/port.ts';
import { markGrantsRevoked } from '../../src/store/accessGrants.ts';
import { copiesOf, copyKeyOf, occurrencesNear } from '../../src/store/calendarCopies.ts';
import { leaseDue } from '../../src/store/copyLeases.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { deleteMembership } from '../../src/store/workspaces.ts';
import { syncCalendar } from '../../src/sync/calendarSync.ts';
import { TestClock } from '../helpers/clock.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { memoryProvider } from '../helpers/memoryCalendars.ts';
import { at, batch, item, scriptedCopy, scriptedProvider, settings } from '../helpers/scriptedSync.ts';

for (const engine of await enginesUnderTest()) {
  describe(`synced copies (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    before(async () => {
      handle = await engine.open();
    });
    after(() => handle.close());

    const setUp = (provider: CalendarProvider<'google'>, clock = new TestClock()) =>
      scriptedCopy(handle, engine.name, provider, { clock });

    const copyOf = async (calendarId: string) => (await copiesOf(handle.db, [calendarId])).get(calendarId);
    const march = { startMs: Date.parse('2026-03-01T00:00:00Z'), endMs: Date.parse('2026-04-01T00:00:00Z') };

    it('copies a granted calendar at its level, and deletes the copy with the last grant', async () => {
      const provider = memoryProvider(
        'google',
        new Map([['cal-1', { name: 'One', occurrences: [at('2026-03-10T09:00:00', 'a', 'Dentist')] }]]),
      );
      const { calendarId, grantId, service } = await setUp(provider);
      assert.equal(await service('one').runDue(), 1);
      const copy = await copyOf(calendarId);
      assert.equal(copy?.level, 'titles');
      assert.notEqual(copy?.syncedAt, null);
      const [held] = await occurrencesNear(handle.db, calendarId, march, copy!.longestMs);
      assert.equal(held?.title, 'Dentist');
      // Titles is the highest level granted: the description was never copied.
      assert.equal(held?.description, undefined);

      await markGrantsRevoked(handle.db, { id: grantId }, 'test', 1);
      assert.equal(await copyOf(calendarId), undefined);
      const left = await handle.db
        .selectFrom('copy_occurrences')
        .select('id')
        .where('copy_key', '=', copyKeyOf(handle.db, calendarId))
        .execute();
      assert.deepEqual(left, []);
    });

    it('deletes the copy when the person leaves the workspace', async () => {
      const provider = memoryProvider('google', new Map([['cal-1', { name: 'One', occurrences: [] }]]));
      const { calendarId, workspaceId, userId, service } = await setUp(provider);
      await service('one').runDue();
      assert.ok(await copyOf(calendarId));
      await deleteMembership(handle.db, workspaceId, userId);
      assert.equal(await copyOf(calendarId), undefined);
    });

    it('shows nothing of a sync until its last batch, and saves the position only with it', async () => {
      const failing = new AppError('provider_unavailable', 'down', { details: { reason: 'server_error' } });
      const { provider, requests } = scriptedProvider([
        async function* () {
          yield batch({ upserts: [item('a', [at('2026-03-10T09:00:00', 'a')])] });
          throw failing;
        },
        async function* () {
          yield batch({ upserts: [item('b', [at('2026-03-11T09:00:00', 'b')])] });
          yield batch({ nextState: 'token-1' });
        },
        async function* () {
          yield batch({
            full: false,
            upserts: [item('c', [at('2026-03-12T09:00:00', 'c')])],
            removals: ['b'],
            nextState: 'token-2',
          });
        },
      ]);
      const { calendarId, service, clock } = await setUp(provider);
      const one = service('one');
      await one.runDue();
      let copy = await copyOf(calendarId);
      assert.equal(copy?.syncedAt, null, 'not complete: never synced');
      assert.equal(copy?.hasState, false);
      assert.equal(copy?.failures, 1);
      assert.equal(copy?.failureReason, 'provider_unavailable');
      const titles = async () =>
        (await occurrencesNear(handle.db, calendarId, march, 0)).map((o) => o.providerEventId).sort();
      assert.deepEqual(await titles(), [], 'the failed sync’s batch was staged, never served');
      const staged = await handle.db
        .selectFrom('copy_staged_items')
        .select('item_key')
        .where('copy_key', '=', copyKeyOf(handle.db, calendarId))
        .execute();
      assert.deepEqual(staged, [], 'and what it staged is cleared');

      // The retry is put off (30 s, doubling), then a full sync replaces what the first left.
      assert.equal(await one.runDue(), 0);
      clock.advance({ seconds: 31 });
      await one.runDue();
      assert.equal(requests[1]?.state, undefined);
      assert.deepEqual(await titles(), ['b'], 'the full sync removed what it did not see');
      copy = await copyOf(calendarId);
      assert.equal(copy?.failures, 0);
      assert.equal(copy?.hasState, true);

      clock.advance({ seconds: settings.intervalMs / 1000 });
      await one.runDue();
      assert.equal(requests[2]?.state, 'token-1');
      assert.deepEqual(await titles(), ['c']);
    });

    it('counts the items it holds, batch by batch, as a count of the copy would', async () => {
      const failing = new AppError('provider_unavailable', 'down', { details: { reason: 'server_error' } });
      const skip = (providerEventId: string) => ({ providerEventId, reason: 'unreadable' });
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({ upserts: [item('a', [at('2026-03-10T09:00:00', 'a')])], skipped: [skip('x')] });
          throw failing;
        },
        async function* () {
          yield batch({ upserts: [item('b', [at('2026-03-11T09:00:00', 'b')])], skipped: [skip('y')] });
          yield batch({
            upserts: [item('c', [at('2026-03-12T09:00:00', 'c')]), item('d', [])],
            nextState: 'token-1',
          });
        },
        async function* () {
          // A changed item, a new one, a removed one, a skipped one read at last, a newly skipped one.
          yield batch({
            full: false,
            upserts: [item('b', [at('2026-03-11T10:00:00', 'b')], 'v2'), item('e', []), item('y', [])],
            removals: ['c'],
            skipped: [skip('d')],
          });
          yield batch({ full: false, removals: ['e', 'nothing-held'], nextState: 'token-2' });
        },
      ]);
      const { calendarId, service, clock } = await setUp(provider);
      const one = service('one');
      const held = async () => {
        const rows = await handle.db
          .selectFrom('copy_items')
          .select(['item_key', 'skipped_reason'])
          .where('copy_key', '=', copyKeyOf(handle.db, calendarId))
          .execute();
        const copy = await copyOf(calendarId);
        return {
          counted: { items: copy?.items, skipped: copy?.skipped },
          held: { items: rows.length, skipped: rows.filter((r) => r.skipped_reason !== null).length },
        };
      };
      await one.runDue();
      let { counted, held: rows } = await held();
      assert.deepEqual(rows, { items: 0, skipped: 0 }, 'nothing of the failed sync is held');
      assert.deepEqual(counted, rows);
      clock.advance({ seconds: 31 });
      await one.runDue();
      ({ counted, held: rows } = await held());
      assert.deepEqual(rows, { items: 4, skipped: 1 }, 'b, c, d and y: a and x were not seen again');
      assert.deepEqual(counted, rows);
      clock.advance({ seconds: settings.intervalMs / 1000 });
      await one.runDue();
      ({ counted, held: rows } = await held());
      assert.deepEqual(rows, { items: 3, skipped: 1 }, 'b, y, and d skipped');
      assert.deepEqual(counted, rows);
    });

    it('lets one sync at a time hold a calendar, and passes a dead one’s lease on', async () => {
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const stalled = Promise.withResolvers<void>();
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({ upserts: [item('a', [at('2026-03-10T09:00:00', 'a')])] });
          stalled.resolve();
          await gate;
          yield batch({ nextState: 'slow' });
        },
        async function* () {
          yield batch({ upserts: [item('b', [at('2026-03-11T09:00:00', 'b')])], nextState: 'taken-over' });
        },
      ]);
      const { calendarId, service, clock } = await setUp(provider);
      const [first, second] = [service('first'), service('second')];
      await reconcileCopies(handle.db, clock.now().epochMilliseconds);
      const slow = first.syncNow(calendarId);
      // While the first holds the lease (its first batch applied, the rest held back), the second cannot sync the calendar.
      await stalled.promise;
      assert.equal(await second.syncNow(calendarId), 'busy');
      // The first stalls past its lease: the second takes the calendar over...
      clock.advance({ milliseconds: settings.leaseMs + 1 });
      assert.equal(await second.syncNow(calendarId), 'synced');
      // ...and the first, waking up, finds its lease gone and writes nothing.
      release();
      assert.equal(await slow, 'busy');
      const copy = await copyOf(calendarId);
      assert.equal(copy?.hasState, true);
      const ids = (await occurrencesNear(handle.db, calendarId, march, 0)).map((o) => o.providerEventId);
      assert.deepEqual(ids, ['b']);
    });

    it('never syncs a round’s calendar whose lease passed to another instance while it waited', async () => {
      const { provider, requests } = scriptedProvider([
        async function* () {
          yield batch({ nextState: 'by-second' });
        },
      ]);
      const { calendarId, service, clock, deps } = await setUp(provider);
      const now = clock.now().epochMilliseconds;
      await reconcileCopies(handle.db, now);
      // The first instance's round leases the calendar, but its turn comes only after the lease ran out...
      assert.deepEqual(await leaseDue(handle.db, engine.name, 'first', now, settings.leaseMs, 8), [
        calendarId,
      ]);
      clock.advance({ milliseconds: settings.leaseMs + 1 });
      // ...by which time the second has synced it and let go.
      assert.equal(await service('second').syncNow(calendarId), 'synced');
      assert.equal((await copyOf(calendarId))?.hasState, true);
      assert.equal(await syncCalendar(deps('first'), calendarId, true), 'busy');
      assert.equal(requests.length, 1, 'the provider was asked once');
    });

    it('waits as long as the provider asks after a 429', async () => {
      const limited = new AppError('provider_unavailable', 'slow down', {
        retryAfter: 600,
        details: { reason: 'rate_limited', status: 429 },
      });
      const { provider } = scriptedProvider([
        // biome-ignore lint/correctness/useYield: it fails before its first batch
        async function* () {
          throw limited;
        },
      ]);
      const { calendarId, service, clock } = await setUp(provider);
      await service('one').runDue();
      const copy = await copyOf(calendarId);
      assert.equal(copy?.nextSyncAt, clock.now().epochMilliseconds + 600_000);
      assert.equal(copy?.failureReason, 'provider_unavailable');
    });
  });
}
