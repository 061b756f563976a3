/**
 * Copies following what the grants may show, on both engines: a copy records whether some grant
 * has private details; when the grants come to show less, everything the copy held (served and
 * staged rows) is deleted at once and it waits for a full sync; when they show more, it is only
 * marked for one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertGrant, markGrantsRevoked } from '../../src/store/accessGrants.ts';
import { copyKeyOf } from '../../src/store/calendarCopies.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { flag } from '../../src/store/schema.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { seedCalendars, seedUser, seedWorkspace } from '../helpers/seed.ts';

for (const engine of await enginesUnderTest()) {
  describe(`copies purged when grants show less (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    let calendarId: string;
    let owner: { userId: string; workspaceId: string };
    const grant = async (id: string, detailLevel: 'full' | 'titles', privateDetails: boolean) =>
      insertGrant(handle.db, {
        id,
        ...owner,
        clientId: id,
        clientName: id,
        scopes: ['calendar:read'],
        privateDetails,
        calendars: [{ calendarId, detailLevel }],
        createdAt: 0,
      });
    const held = async () => {
      const count = async (
        table: 'copy_items' | 'copy_occurrences' | 'copy_staged_items' | 'copy_staged_occurrences',
      ) =>
        (
          await handle.db
            .selectFrom(table)
            .select('item_key')
            .where('copy_key', '=', copyKeyOf(handle.db, calendarId))
            .execute()
        ).length;
      return {
        items: await count('copy_items'),
        occurrences: await count('copy_occurrences'),
        stagedItems: await count('copy_staged_items'),
        stagedOccurrences: await count('copy_staged_occurrences'),
      };
    };
    const copy = async () => {
      const row = await handle.db
        .selectFrom('calendar_copies')
        .select(['level', 'private_details', 'sync_state'])
        .where('calendar_id', '=', calendarId)
        .executeTakeFirstOrThrow();
      return { level: row.level, privateDetails: flag(row.private_details), syncState: row.sync_state };
    };
    /** What a synced copy and a running sync hold, as if a sync at the current level had written it. */
    const fill = async () => {
      await handle.db
        .updateTable('calendar_copies')
        .set({ sync_state: 'position', synced_at: 1 })
        .where('calendar_id', '=', calendarId)
        .execute();
      const { copy_key } = await copyKeyOf(handle.db, calendarId).executeTakeFirstOrThrow();
      const occurrence = {
        copy_key,
        start_ms: 0,
        end_ms: 3_600_000,
        data: '{"title":"Secret"}',
      };
      for (const key of ['a', 'b']) {
        await handle.db
          .insertInto('copy_items')
          .values({
            copy_key,
            item_key: key,
            version: '1',
            generation: 1,
            skipped_reason: null,
          })
          .execute();
        await handle.db
          .insertInto('copy_occurrences')
          .values({ ...occurrence, item_key: key })
          .execute();
      }
      await handle.db
        .insertInto('copy_staged_items')
        .values({ copy_key, item_key: 'c', version: '1', generation: 2, skipped_reason: null })
        .execute();
      await handle.db
        .insertInto('copy_staged_occurrences')
        .values({ ...occurrence, item_key: 'c', title_text: 'secret', body_text: '' })
        .execute();
    };

    before(async () => {
      handle = await engine.open();
      const userId = await seedUser(handle.db, 'pia@example.org');
      owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Team', [[userId, 'owner']]) };
      [calendarId] = (await seedCalendars(handle.db, owner, [{ name: 'Work' }])) as [string];
    });
    after(() => handle.close());

    it('keeps private details only while a grant has them, purging at once when none has', async () => {
      await grant('plain', 'full', false);
      await grant('private', 'full', true);
      await reconcileCopies(handle.db, 0);
      assert.deepEqual(await copy(), { level: 'full', privateDetails: true, syncState: null });
      await fill();

      await markGrantsRevoked(handle.db, { id: 'private' }, 'test', 1);
      const outcome = await reconcileCopies(handle.db, 1);
      assert.equal(outcome.purged, 1);
      assert.deepEqual(await copy(), { level: 'full', privateDetails: false, syncState: null });
      assert.deepEqual(await held(), { items: 0, occurrences: 0, stagedItems: 0, stagedOccurrences: 0 });
    });

    it('purges a copy whose level drops, and only marks one whose grants show more', async () => {
      await fill();
      await grant('more', 'full', true);
      assert.equal((await reconcileCopies(handle.db, 2)).purged, 0);
      assert.deepEqual(await copy(), { level: 'full', privateDetails: true, syncState: null });
      assert.deepEqual(await held(), { items: 2, occurrences: 2, stagedItems: 1, stagedOccurrences: 1 });

      await grant('titles', 'titles', true);
      for (const id of ['plain', 'more']) await markGrantsRevoked(handle.db, { id }, 'test', 3);
      assert.equal((await reconcileCopies(handle.db, 3)).purged, 1);
      assert.deepEqual(await copy(), { level: 'titles', privateDetails: true, syncState: null });
      assert.deepEqual(await held(), { items: 0, occurrences: 0, stagedItems: 0, stagedOccurrences: 0 });
    });
  });
}
