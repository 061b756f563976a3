/**
 * Migrations 0023 to 0025 on both engines: the copied rows lose their texts (the word index is
 * where a search finds text), an indexed copy keeps its rows, items and index as they were, and a
 * copy not indexed yet — which could then answer no search — is emptied and made due, as a copy
 * whose grants show less is, so that its next sync copies it anew. On SQLite the items' table is
 * rebuilt keyed by itself, with foreign keys off (its occurrences stay) and on again after.
 * A row's status becomes a number (0 confirmed, 1 tentative, 2 cancelled).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { enginesUnderTest, freshPostgres } from '../helpers/databases.ts';
import { seedCalendars, seedReadGrant, seedUser, seedWorkspace } from '../helpers/seed.ts';

for (const engine of await enginesUnderTest()) {
  describe(`copied rows made smaller (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    after(() => handle?.close());

    it('keeps an indexed copy as it was and empties one not indexed yet for its next sync', async () => {
      handle = engine.name === 'postgres' ? await freshPostgres() : openDatabase({ sqlitePath: ':memory:' });
      const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } });
      const to = await migrator.migrateTo('0022_drop_copy_text_index');
      assert.equal(to.error, undefined);
      const userId = await seedUser(handle.db, 'mig@example.org');
      const owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Mig', [[userId, 'owner']]) };
      const [indexed, unindexed] = (await seedCalendars(handle.db, owner, [
        { name: 'Indexed' },
        { name: 'Not yet' },
      ])) as [string, string];
      await seedReadGrant(handle.db, owner, [indexed, unindexed]);
      await reconcileCopies(handle.db, 0);
      const no = engine.name === 'postgres' ? sql`false` : sql`0`;
      await sql`update calendar_copies set words_indexed = ${no}, sync_state = 'position', synced_at = 5,
        next_sync_at = 99, items = 1, version = 3 where calendar_id = ${unindexed}`.execute(handle.db);
      await sql`update calendar_copies set sync_state = 'position', synced_at = 5, next_sync_at = 99, items = 1,
        version = 3 where calendar_id = ${indexed}`.execute(handle.db);
      for (const calendarId of [indexed, unindexed]) {
        await sql`insert into copy_items (calendar_id, item_key, version, generation)
          values (${calendarId}, 'k', '1', 1)`.execute(handle.db);
        for (const [i, status] of ['confirmed', 'tentative', 'cancelled'].entries())
          await sql`insert into copy_occurrences (calendar_id, item_key, start_ms, end_ms, data, title_text, body_text, event_id, occurrence_id, status)
            values (${calendarId}, 'k', ${i}, 1, ${Buffer.from('packed')}, 'standup', 'notes', 'e1', ${`o${i}`}, ${status})`.execute(
            handle.db,
          );
      }
      await sql`insert into copy_words (calendar_id, word, bucket, ids) values (${indexed}, 'standup', 0, ${Buffer.from([8])})`.execute(
        handle.db,
      );

      // These three first, and those after them up to the copies' numbers (0027 empties the copies).
      assert.deepEqual((await migrateToLatest(handle, '0026_grant_budget_unlogged')).slice(0, 3), [
        '0023_copy_rows_keep_no_text',
        '0024_copy_items_without_rowid',
        '0025_copy_status_codes',
      ]);
      if (engine.name === 'sqlite') {
        // The items' table rebuilt keyed by itself, its children left in place (checked above and below).
        const table = await sql<{
          sql: string;
        }>`select sql from sqlite_schema where name = 'copy_items'`.execute(handle.db);
        assert.match(table.rows[0]!.sql, /without rowid/i);
        const keys = await sql<{ on: number }>`pragma foreign_keys`.execute(handle.db);
        assert.deepEqual(Object.values(keys.rows[0]!), [1]);
      }
      // Run again, nothing is left to run, and everything stays as it was.
      assert.deepEqual(await migrateToLatest(handle, '0026_grant_budget_unlogged'), []);
      if (engine.name === 'sqlite') {
        const keys = await sql<{ on: number }>`pragma foreign_keys`.execute(handle.db);
        assert.deepEqual(Object.values(keys.rows[0]!), [1]);
      }

      const rows = await sql<{
        calendar_id: string;
        status_code: number;
      }>`select * from copy_occurrences order by calendar_id, start_ms`.execute(handle.db);
      assert.deepEqual(
        rows.rows.map((row) => [row.calendar_id, row.status_code]),
        [
          [indexed, 0],
          [indexed, 1],
          [indexed, 2],
        ],
      );
      for (const gone of ['title_text', 'body_text', 'status']) assert.ok(!(gone in rows.rows[0]!), gone);
      const copies = await sql<{
        calendar_id: string;
        sync_state: string | null;
        synced_at: number | null;
        next_sync_at: number | string;
        items: number;
        version: number;
      }>`select * from calendar_copies`.execute(handle.db);
      const copy = (id: string) => {
        const found = copies.rows.find((row) => row.calendar_id === id)!;
        assert.ok(!('words_indexed' in found));
        return [
          found.sync_state,
          found.synced_at === null ? null : Number(found.synced_at),
          Number(found.next_sync_at),
          Number(found.items),
          Number(found.version),
        ];
      };
      assert.deepEqual(copy(indexed), ['position', 5, 99, 1, 3]);
      assert.deepEqual(copy(unindexed), [null, null, 0, 0, 4]);
      const items = await sql<{ calendar_id: string }>`select calendar_id from copy_items`.execute(handle.db);
      assert.deepEqual(
        items.rows.map((row) => row.calendar_id),
        [indexed],
      );
      const words = await sql<{ calendar_id: string }>`select calendar_id from copy_words`.execute(handle.db);
      assert.deepEqual(
        words.rows.map((row) => row.calendar_id),
        [indexed],
      );
    });
  });
}
