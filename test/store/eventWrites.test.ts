/** Idempotency keys and the write record in storage, on both engines. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertGrant } from '../../src/store/accessGrants.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { eventWritesOf, recordEventWrite } from '../../src/store/eventWrites.ts';
import {
  claimWriteKey,
  confirmWriteKey,
  deleteExpiredWriteKeys,
  findWriteKey,
  type WriteKey,
  writeKeyLifetimeMs,
} from '../../src/store/writeKeys.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { seedCalendars, seedUser, seedWorkspace } from '../helpers/seed.ts';

for (const engine of await enginesUnderTest()) {
  describe(`event writes (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    let userId: string;
    let workspaceId: string;
    let calendarId: string;

    before(async () => {
      handle = await engine.open();
      userId = await seedUser(handle.db, 'ana@example.org');
      workspaceId = await seedWorkspace(handle.db, 'Acme', [[userId, 'owner']]);
      [calendarId] = (await seedCalendars(handle.db, { userId, workspaceId }, [{ name: 'Work' }])) as [
        string,
      ];
      await insertGrant(handle.db, {
        id: 'g1',
        userId,
        workspaceId,
        clientId: 'planner',
        clientName: 'Planner',
        scopes: ['calendar:read', 'calendar:write'],
        privateDetails: false,
        calendars: [{ calendarId, detailLevel: 'full' }],
        createdAt: 1,
      });
    });
    after(() => handle.close());

    it('lets exactly one request claim a key, even when several race for it', async () => {
      const key = (uid: string): WriteKey => ({
        userId,
        clientId: 'planner',
        keyHash: 'k1',
        requestHash: 'r1',
        calendarId,
        uid,
        providerEventId: null,
        createdAt: 1000,
      });
      const claims = await Promise.all(['a', 'b', 'c', 'd'].map((uid) => claimWriteKey(handle.db, key(uid))));
      assert.equal(claims.filter(Boolean).length, 1);
      const stored = await findWriteKey(handle.db, { userId, clientId: 'planner' }, 'k1');
      assert.equal(stored?.uid, ['a', 'b', 'c', 'd'][claims.indexOf(true)]);
      await confirmWriteKey(handle.db, stored!, 'provider-1');
      assert.equal(
        (await findWriteKey(handle.db, { userId, clientId: 'planner' }, 'k1'))?.providerEventId,
        'provider-1',
      );
      // Keys belong to one person and one app.
      assert.equal(await findWriteKey(handle.db, { userId, clientId: 'other-app' }, 'k1'), undefined);
      assert.equal(await claimWriteKey(handle.db, { ...key('e'), clientId: 'other-app' }), true);
    });

    it('forgets keys after their lifetime', async () => {
      await claimWriteKey(handle.db, {
        userId,
        clientId: 'planner',
        keyHash: 'old',
        requestHash: 'r',
        calendarId,
        uid: 'u',
        providerEventId: null,
        createdAt: 0,
      });
      await deleteExpiredWriteKeys(handle.db, writeKeyLifetimeMs + 1);
      assert.equal(await findWriteKey(handle.db, { userId, clientId: 'planner' }, 'old'), undefined);
      assert.ok(await findWriteKey(handle.db, { userId, clientId: 'planner' }, 'k1'), 'younger keys stay');
    });

    it('lists a person’s writes newest first with the app’s and calendar’s names', async () => {
      const entry = {
        userId,
        workspaceId,
        grantId: 'g1',
        clientId: 'planner',
        calendarId,
        eventId: 'evt_1',
        occurrenceId: null,
        scope: null,
        errorCode: null,
      };
      await recordEventWrite(handle.db, { ...entry, action: 'create', outcome: 'applied', at: 10 });
      await recordEventWrite(handle.db, {
        ...entry,
        action: 'delete',
        scope: 'series',
        outcome: 'refused',
        errorCode: 'not_organizer',
        at: 20,
      });
      await recordEventWrite(handle.db, {
        ...entry,
        calendarId: 'cal_gone',
        action: 'update',
        outcome: 'unknown',
        at: 30,
      });
      const rows = await eventWritesOf(handle.db, userId);
      assert.deepEqual(
        rows.map((r) => [r.action, r.scope, r.outcome, r.errorCode, r.clientName, r.calendarName, r.at]),
        [
          ['update', null, 'unknown', null, 'Planner', null, 30],
          ['delete', 'series', 'refused', 'not_organizer', 'Planner', 'Work', 20],
          ['create', null, 'applied', null, 'Planner', 'Work', 10],
        ],
      );
      assert.deepEqual(await eventWritesOf(handle.db, 'usr_nobody'), []);
    });
  });
}
