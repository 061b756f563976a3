/**
 * Migration 0027 on both engines: every copy gets a number from the database (existing ones and
 * those made after), and the word lists, keyed by the calendar's id before, are keyed by it —
 * each list kept with its own copy, and gone with it.
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

      assert.deepEqual((await migrateToLatest(handle)).slice(0, 1), ['0027_copy_words_by_copy_key']);

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
      // A restart finds nothing to run.
      assert.deepEqual(await migrateToLatest(handle), []);
    });
  });
}
