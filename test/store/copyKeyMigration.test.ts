/**
 * Migration 0027 on both engines: every copy gets a number from the database (existing ones and
 * those made after, past the others), the copies are emptied and made due, and their word lists,
 * items and rows' links to items are keyed by the number: a row of no item is refused, an item
 * gone takes its rows, a copy gone its items and lists.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { encodeSlot, slotOf } from '../../src/store/wordPostings.ts';
import { enginesUnderTest, freshPostgres } from '../helpers/databases.ts';
import { seedCalendars, seedReadGrant, seedUser, seedWorkspace } from '../helpers/seed.ts';

for (const engine of await enginesUnderTest()) {
  describe(`copies numbered, their rows keyed by the number (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    after(() => handle?.close());

    it('numbers every copy, empties them for their next sync and keys their rows by the number', async () => {
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
      // A synced copy as the rows were keyed before: by the calendar's id.
      await sql`update calendar_copies set sync_state = 'position', synced_at = 5, next_sync_at = 99, items = 1`.execute(
        handle.db,
      );
      await sql`insert into copy_items (calendar_id, item_key, version, generation)
        values (${first}, 'k', '1', 1)`.execute(handle.db);
      await sql`insert into copy_occurrences (calendar_id, item_key, start_ms, end_ms, data)
        values (${first}, 'k', 0, 1, ${Buffer.from('packed')})`.execute(handle.db);
      await sql`insert into copy_words (calendar_id, word, bucket, ids)
        values (${first}, 'standup', 0, ${Buffer.from([8])})`.execute(handle.db);

      assert.deepEqual(await migrateToLatest(handle, '0027_copies_numbered'), ['0027_copies_numbered']);

      const copies = async () =>
        new Map(
          (
            await handle.db
              .selectFrom('calendar_copies')
              .select(['calendar_id', 'copy_key', 'sync_state', 'synced_at', 'next_sync_at', 'items'])
              .execute()
          ).map((row) => [row.calendar_id, row]),
        );
      const before = await copies();
      const keys = [...before.values()].map((copy) => Number(copy.copy_key));
      assert.equal(new Set(keys).size, 2, 'each copy its own number');
      for (const key of keys) assert.ok(Number.isInteger(key) && key > 0);
      for (const copy of before.values())
        assert.deepEqual(
          [copy.sync_state, copy.synced_at, Number(copy.next_sync_at), copy.items],
          [null, null, 0, 0],
          'emptied and due',
        );
      for (const table of ['copy_items', 'copy_occurrences', 'copy_words'] as const)
        assert.equal((await handle.db.selectFrom(table).selectAll().execute()).length, 0, table);
      // The later migrations too: the rows below are written as the store writes them now.
      assert.ok((await migrateToLatest(handle)).includes('0028_copy_words_in_slots'));

      // A copy made now is numbered by the database, past the others; numbers stay.
      await seedReadGrant(handle.db, owner, [third]);
      await reconcileCopies(handle.db, 0);
      const now = await copies();
      assert.ok(Number(now.get(third)!.copy_key) > Math.max(...keys));
      assert.equal(now.get(first)!.copy_key, before.get(first)!.copy_key);

      // A sync's rows: an item, its rows and the word lists by the copy's number.
      const copyKey = Number(now.get(second)!.copy_key);
      const item = () =>
        handle.db
          .insertInto('copy_items')
          .values({ copy_key: copyKey, item_key: 'k', version: '1', generation: 1, skipped_reason: null })
          .execute();
      const row = (itemKey: string) =>
        handle.db
          .insertInto('copy_occurrences')
          .values({
            copy_key: copyKey,
            item_key: itemKey,
            start_ms: 0,
            end_ms: 1,
            data: 'x',
          })
          .execute();
      const count = async (table: 'copy_items' | 'copy_occurrences' | 'copy_words') =>
        (await handle.db.selectFrom(table).selectAll().execute()).length;
      await item();
      await row('k');
      await handle.db
        .insertInto('copy_words')
        .values({
          copy_key: copyKey,
          bucket: 0,
          slot: slotOf('standup'),
          lists: encodeSlot(new Map([['standup', Buffer.from([8])]])),
        })
        .execute();
      await assert.rejects(row('none'), 'a row of no item');
      await handle.db.deleteFrom('copy_items').where('item_key', '=', 'k').execute();
      assert.equal(await count('copy_occurrences'), 0, 'an item gone takes its rows');
      await item();
      await handle.db.deleteFrom('calendar_copies').where('calendar_id', '=', second).execute();
      assert.deepEqual(
        [await count('copy_items'), await count('copy_words')],
        [0, 0],
        'a copy gone, its items and lists',
      );
      // The highest copy dropped and made again (its grant still live): SQLite may give a dropped
      // copy's number again, which must name none of the old rows.
      const highest = Number(now.get(third)!.copy_key);
      await handle.db
        .insertInto('copy_items')
        .values({ copy_key: highest, item_key: 'old', version: '1', generation: 1, skipped_reason: null })
        .execute();
      await handle.db.deleteFrom('calendar_copies').where('calendar_id', '=', third).execute();
      await reconcileCopies(handle.db, 0);
      const again = Number((await copies()).get(third)!.copy_key);
      assert.notEqual(again, Number(now.get(first)!.copy_key));
      assert.equal(
        (await handle.db.selectFrom('copy_items').selectAll().where('copy_key', '=', again).execute()).length,
        0,
        'a copy made again starts empty',
      );
      const orphans = await sql<{ n: number }>`select count(*) as n from copy_items
        where copy_key not in (select copy_key from calendar_copies)`.execute(handle.db);
      assert.equal(Number(orphans.rows[0]!.n), 0, 'no item outlives its copy');

      if (engine.name === 'sqlite') {
        const tables = await sql<{ name: string; sql: string }>`select name, sql from sqlite_schema
          where name in ('copy_items', 'copy_staged_items', 'copy_words')`.execute(handle.db);
        assert.equal(tables.rows.length, 3);
        for (const { name, sql: text } of tables.rows) assert.match(text, /without rowid/i, name);
      }
      // A restart finds nothing to run.
      assert.deepEqual(await migrateToLatest(handle), []);
    });
  });
}
