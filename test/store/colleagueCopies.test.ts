/**
 * Busy-only copies for colleagues' free/busy, on both engines: a calendar counting toward its
 * member's availability is copied at least busy, whether or not an app reaches it; the copy goes
 * when the calendar stops counting, the workspace turns the setting off (at once when an admin
 * saves it) or no colleague is left, unless a grant still reaches it (then at the level granted).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updatePolicy } from '../../src/people/policyChanges.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { insertGrant, markGrantsRevoked } from '../../src/store/accessGrants.ts';
import { setCountingCalendars } from '../../src/store/connectedAccounts.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { deleteMembership, insertMembership, savePolicy } from '../../src/store/workspaces.ts';
import { testAdministration } from '../helpers/administration.ts';
import { TestClock } from '../helpers/clock.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { seedCalendars, seedUser, seedWorkspace } from '../helpers/seed.ts';

for (const engine of await enginesUnderTest()) {
  describe(`busy-only copies for colleagues (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    let workspaceId: string;
    let pia: string;
    let ola: string;
    let ids: { work: string; diary: string; home: string };
    let piaAccount: string;
    /** Each copy's level, by calendar name. */
    const copies = async () => {
      const rows = await handle.db
        .selectFrom('calendar_copies as cc')
        .innerJoin('calendars as c', 'c.id', 'cc.calendar_id')
        .select(['c.name', 'cc.level'])
        .orderBy('c.name')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.name, r.level]));
    };
    const reconcile = () => reconcileCopies(handle.db, 0);

    before(async () => {
      handle = await engine.open();
      pia = await seedUser(handle.db, 'pia@example.org');
      ola = await seedUser(handle.db, 'ola@example.org');
      workspaceId = await seedWorkspace(handle.db, 'Team', [
        [pia, 'owner'],
        [ola, 'member'],
      ]);
      const [work, diary] = await seedCalendars(handle.db, { userId: pia, workspaceId }, [
        { name: 'Work' },
        { name: 'Diary' },
      ]);
      const [home] = await seedCalendars(handle.db, { userId: ola, workspaceId }, [{ name: 'Home' }]);
      ids = { work: work!, diary: diary!, home: home! };
      piaAccount = (await handle.db
        .selectFrom('calendars')
        .select('account_id')
        .where('id', '=', ids.work)
        .executeTakeFirstOrThrow())!.account_id;
      await insertGrant(handle.db, {
        id: 'grant-1',
        userId: pia,
        workspaceId,
        clientId: 'app',
        clientName: 'App',
        scopes: ['calendar:read'],
        privateDetails: false,
        calendars: [{ calendarId: ids.work, detailLevel: 'full' }],
        createdAt: 0,
      });
    });
    after(() => handle.close());

    it('copies every counting calendar busy-only, a granted one at its level', async () => {
      await reconcile();
      assert.deepEqual(await copies(), { Diary: 'busy', Home: 'busy', Work: 'full' });
    });

    it('drops the copy of a calendar that stops counting, unless a grant reaches it', async () => {
      await setCountingCalendars(handle.db, piaAccount, [], 0);
      assert.deepEqual(await reconcile(), { added: 0, dropped: 1, purged: 0 });
      assert.deepEqual(await copies(), { Home: 'busy', Work: 'full' });
      await setCountingCalendars(handle.db, piaAccount, [ids.work, ids.diary], 0);
      await reconcile();
      assert.deepEqual(await copies(), { Diary: 'busy', Home: 'busy', Work: 'full' });
    });

    it('drops them when the workspace turns the setting off, and makes them again when on', async () => {
      // Saved by an admin, the copies follow at once, before any round.
      const off = { ...defaultPolicy, colleagueAvailability: false, allowedClients: '' };
      await updatePolicy(testAdministration(handle.db, new TestClock()), workspaceId, off, { userId: pia });
      assert.deepEqual(await copies(), { Work: 'full' });
      await savePolicy(handle.db, workspaceId, defaultPolicy, 0);
      await reconcile();
      assert.deepEqual(await copies(), { Diary: 'busy', Home: 'busy', Work: 'full' });
    });

    it('lowers a counting calendar to busy when its grant ends', async () => {
      await markGrantsRevoked(handle.db, { id: 'grant-1' }, 'revoked', 0);
      assert.deepEqual(await reconcile(), { added: 0, dropped: 0, purged: 1 });
      assert.deepEqual(await copies(), { Diary: 'busy', Home: 'busy', Work: 'busy' });
    });

    it('drops them all when no colleague is left to ask', async () => {
      await deleteMembership(handle.db, workspaceId, ola);
      assert.deepEqual(await copies(), {});
      await insertMembership(handle.db, { workspaceId, userId: ola, role: 'member', now: 0 });
      await reconcile();
      assert.deepEqual(await copies(), { Diary: 'busy', Home: 'busy', Work: 'busy' });
    });
  });
}
