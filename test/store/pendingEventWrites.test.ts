/**
 * A write's record exists before the provider is asked: pending until settled; one a crash left
 * pending is listed as interrupted once it is older than any write could take, and a retry with
 * the same idempotency key settles it — only it: other keys, other apps and settled records stay.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/store/database.ts';
import {
  type EventWriteEntry,
  eventWritesOf,
  recordEventWrite,
  settleEarlierAttempts,
  settleEventWrite,
} from '../../src/store/eventWrites.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { seedCalendars, seedUser, seedWorkspace } from '../helpers/seed.ts';

for (const engine of await enginesUnderTest()) {
  describe(`pending event writes (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    let entry: EventWriteEntry;
    const owner = { userId: '', clientId: 'planner' };
    const listed = async (unsettledBefore: number) =>
      (await eventWritesOf(handle.db, owner.userId, { unsettledBefore })).map((r) => [
        r.id,
        r.outcome,
        r.calendarName,
        r.eventId,
      ]);

    before(async () => {
      handle = await engine.open();
      owner.userId = await seedUser(handle.db, 'ana@example.org');
      const workspaceId = await seedWorkspace(handle.db, 'Acme', [[owner.userId, 'owner']]);
      const [calendarId] = await seedCalendars(handle.db, { userId: owner.userId, workspaceId }, [
        { name: 'Work' },
      ]);
      entry = {
        userId: owner.userId,
        workspaceId,
        grantId: 'g1',
        clientId: 'planner',
        calendarId: calendarId!,
        eventId: null,
        occurrenceId: null,
        action: 'create',
        scope: null,
        outcome: 'pending',
        errorCode: null,
        at: 1_000,
      };
    });
    after(() => handle.close());

    it('lists a pending write as under way, then as interrupted once no write could still be', async () => {
      const id = await recordEventWrite(handle.db, entry);
      assert.deepEqual(await listed(1_000), [[id, 'pending', 'Work', null]]);
      assert.deepEqual(await listed(1_001), [[id, 'interrupted', 'Work', null]]);
      // Without a bound nothing is called interrupted.
      assert.equal((await eventWritesOf(handle.db, owner.userId))[0]?.outcome, 'pending');
      await settleEventWrite(handle.db, id, {
        calendarId: entry.calendarId,
        eventId: 'evt_1',
        outcome: 'applied',
        errorCode: null,
      });
      assert.deepEqual(await listed(5_000), [[id, 'applied', 'Work', 'evt_1']]);
    });

    it('settles the pending attempts of one key and one app from what a retry found', async () => {
      const keyed = async (keyHash: string, clientId = 'planner') => {
        const id = await recordEventWrite(handle.db, { ...entry, clientId });
        await settleEventWrite(handle.db, id, { ...entry, outcome: 'pending', keyHash });
        return id;
      };
      const crashed = await keyed('k1');
      const otherKey = await keyed('k2');
      const otherApp = await keyed('k1', 'other-app');
      const refused = await keyed('k1');
      await settleEventWrite(handle.db, refused, { ...entry, outcome: 'refused', errorCode: 'conflict' });

      await settleEarlierAttempts(handle.db, owner, 'k1', { outcome: 'applied', eventId: 'evt_made' });
      const byId = new Map((await eventWritesOf(handle.db, owner.userId)).map((r) => [r.id, r]));
      assert.deepEqual(
        [crashed, otherKey, otherApp, refused].map((id) => [byId.get(id)?.outcome, byId.get(id)?.eventId]),
        [
          ['applied', 'evt_made'],
          ['pending', null],
          ['pending', null],
          ['refused', null],
        ],
      );
      await settleEarlierAttempts(handle.db, owner, 'k2', { outcome: 'not_applied', eventId: null });
      const after = await eventWritesOf(handle.db, owner.userId);
      assert.equal(after.find((r) => r.id === otherKey)?.outcome, 'not_applied');
    });
  });
}
