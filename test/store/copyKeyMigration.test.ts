/**
 * Migrations 0027 and 0028 on both engines: every copy gets a number from the database (existing
 * ones and those made after), and the word lists, keyed by the calendar's id before, are keyed by
 * it — each list kept with its own copy, and gone with it; then the items and the rows' link to
 * them are keyed by it too, the copies emptied and made due for their next sync.
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
  describe(`copies numbered, word lists keyed by the number (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    after(() => handle?.close());

    it('moves each list to its own copy, numbers new copies apart and drops lists with their copy', async () => {
      handle = engine.name === 'postgres' ? await freshPostgres() : openDatabase({ sqlitePath: ':memory:' });
      const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } });
      assert.equal((await migrator.migrateTo('0026_grant_budget_unlogged')).error, undefined);
      const userId = await seedUser(handle.db, 'keys@example.org');
      const owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Keys', [[userId, 'owner']]) };
      const [first, second, third] = (await seedCalendars(handle.db, owner, [
        { name: 'First' },
        { name: 'Second' },
        { name: 'Third' },
      ])) as [string, string, string];
      await seedReadGrant(handle.db, owner, [first, second]);
      await reconcileCopies(handle.db, 0);
      const list = (calendarId: string, word: string, bucket: number, ids: number[]) =>
        sql`insert into copy_words (calendar_id, word, bucket, ids)
          values (${calendarId}, ${word}, ${bucket}, ${Buffer.from(ids)})`.execute(handle.db);
      await list(first, 'standup', 0, [8]);
      await list(first, 'review', 3, [16, 9]);
      await list(second, 'standup', 0, [24]);

      assert.deepEqual(await migrateToLatest(handle, '0027_copy_words_by_copy_key'), [
        '0027_copy_words_by_copy_key',
      ]);

      const keys = async () =>
        new Map(
          (await handle.db.selectFrom('calendar_copies').select(['calendar_id', 'copy_key']).execute()).map(
            (row) => [row.calendar_id, Number(row.copy_key)],
          ),
        );
      const before = await keys();
      assert.equal(before.size, 2);
      assert.equal(new Set(before.values()).size, 2, 'each copy its own number');
      for (const key of before.values()) assert.ok(Number.isInteger(key) && key > 0);
      const lists = async () =>
        (
          await sql<{
            calendar_id: string;
            word: string;
            bucket: number;
            ids: Uint8Array;
          }>`select c.calendar_id, w.word, w.bucket, w.ids from copy_words w
            join calendar_copies c on c.copy_key = w.copy_key`.execute(handle.db)
        ).rows
          .map(
            (row) =>
              `${row.calendar_id === first ? 'first' : 'second'} ${row.word} ${row.bucket} ${[...row.ids]}`,
          )
          .sort();
      assert.deepEqual(await lists(), ['first review 3 16,9', 'first standup 0 8', 'second standup 0 24']);

      // A copy made now is numbered by the database, past the others.
      await seedReadGrant(handle.db, owner, [third]);
      await reconcileCopies(handle.db, 0);
      const after = await keys();
      assert.ok(after.get(third)! > Math.max(...before.values()));
      assert.equal(after.get(first), before.get(first), 'numbers stay');

      // A copy dropped takes its lists with it, and no other's.
      await handle.db.deleteFrom('calendar_copies').where('calendar_id', '=', first).execute();
      assert.deepEqual(await lists(), ['second standup 0 24']);

      if (engine.name === 'sqlite') {
        const table = await sql<{
          sql: string;
        }>`select sql from sqlite_schema where name = 'copy_words'`.execute(handle.db);
        assert.match(table.rows[0]!.sql, /without rowid/i);
      }
      // Run again, nothing is left to run.
      assert.deepEqual(await migrateToLatest(handle, '0027_copy_words_by_copy_key'), []);

      // 0028: items, and the rows' link to them, by the copy's number; the copies emptied and due.
      const { copy_key: secondKey } = await handle.db
        .selectFrom('calendar_copies')
        .select('copy_key')
        .where('calendar_id', '=', second)
        .executeTakeFirstOrThrow();
      await sql`update calendar_copies set sync_state = 'position', synced_at = 5, next_sync_at = 99, items = 1
        where calendar_id = ${second}`.execute(handle.db);
      await sql`insert into copy_items (calendar_id, item_key, version, generation)
        values (${second}, 'k', '1', 1)`.execute(handle.db);
      await sql`insert into copy_occurrences (calendar_id, item_key, start_ms, end_ms, data)
        values (${second}, 'k', 0, 1, ${Buffer.from('packed')})`.execute(handle.db);
      assert.deepEqual(await migrateToLatest(handle), ['0028_copy_items_by_copy_key']);
      const copy = await handle.db
        .selectFrom('calendar_copies')
        .select(['sync_state', 'synced_at', 'next_sync_at', 'items', 'copy_key'])
        .where('calendar_id', '=', second)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [copy.sync_state, copy.synced_at, Number(copy.next_sync_at), copy.items, Number(copy.copy_key)],
        [null, null, 0, 0, Number(secondKey)],
        'emptied and due, its number kept',
      );
      for (const table of ['copy_items', 'copy_occurrences', 'copy_words'] as const)
        assert.equal((await handle.db.selectFrom(table).selectAll().execute()).length, 0, table);
      // A sync's rows now: an item by the copy's number, its rows linked by it.
      const copyKey = Number(secondKey);
      const item = () =>
        handle.db
          .insertInto('copy_items')
          .values({ copy_key: copyKey, item_key: 'k', version: '1', generation: 1, skipped_reason: null })
          .execute();
      const row = (itemKey: string) =>
        handle.db
          .insertInto('copy_occurrences')
          .values({
            calendar_id: second,
            copy_key: copyKey,
            item_key: itemKey,
            start_ms: 0,
            end_ms: 1,
            data: 'x',
          })
          .execute();
      await item();
      await row('k');
      // A row of no item is refused; an item gone takes its rows; a copy gone, its items.
      await assert.rejects(row('none'));
      await handle.db.deleteFrom('copy_items').where('item_key', '=', 'k').execute();
      assert.equal((await handle.db.selectFrom('copy_occurrences').selectAll().execute()).length, 0);
      await item();
      await handle.db.deleteFrom('calendar_copies').where('calendar_id', '=', second).execute();
      assert.equal((await handle.db.selectFrom('copy_items').selectAll().execute()).length, 0);
      if (engine.name === 'sqlite') {
        const table = await sql<{
          sql: string;
        }>`select sql from sqlite_schema where name = 'copy_items'`.execute(handle.db);
        assert.match(table.rows[0]!.sql, /without rowid/i);
      }
      assert.deepEqual(await migrateToLatest(handle), []);
    });
  });
}
