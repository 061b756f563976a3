/**
 * Migration 0031 on both engines: every copy's rows of instants get their starts beside the word
 * index, a row per copy and bucket, as the sync writes them (store/copyStarts.ts), and the store
 * reads them; rows of local times are left out, and a copy gone takes its starts.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { decodeStarts } from '../../src/store/bucketStarts.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { bucketStarts } from '../../src/store/copyStarts.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { bucketStartMs } from '../../src/store/wordPostings.ts';
import { enginesUnderTest, freshPostgres } from '../helpers/databases.ts';
import { seedCalendars, seedReadGrant, seedUser, seedWorkspace } from '../helpers/seed.ts';

for (const engine of await enginesUnderTest()) {
  describe(`the starts of the copies' instants (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    after(() => handle?.close());

    it('are made for every copy from its rows, by bucket, and go with their copy', async () => {
      handle = engine.name === 'postgres' ? await freshPostgres() : openDatabase({ sqlitePath: ':memory:' });
      await migrateToLatest(handle, '0030_copy_rows_without_calendar');
      const userId = await seedUser(handle.db, 'starts@example.org');
      const owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Starts', [[userId, 'owner']]) };
      const calendars = await seedCalendars(handle.db, owner, [{ name: 'One' }, { name: 'Two' }]);
      await seedReadGrant(handle.db, owner, calendars);
      await reconcileCopies(handle.db, 0);
      const keys = (
        await sql<{
          copy_key: number | string;
        }>`select copy_key from calendar_copies order by copy_key`.execute(handle.db)
      ).rows.map((row) => Number(row.copy_key));
      // Each copy: rows in two buckets (one at a bucket's first millisecond, one at its last), and a local time.
      const expected = new Map<number, Map<number, { ids: number[]; starts: number[] }>>();
      let id = 0;
      for (const copyKey of keys) {
        await sql`insert into copy_items (copy_key, item_key, version, generation) values (${copyKey}, 'k', '1', 1)`.execute(
          handle.db,
        );
        const rows: [number, number][] = [
          [bucketStartMs(6_602), 0],
          [bucketStartMs(6_602) + 3_600_000, 0],
          [bucketStartMs(6_603) - 1, 0],
          [bucketStartMs(6_603) + 60_000, 0],
          [bucketStartMs(6_603) + 120_000, 1],
        ];
        const ofCopy = new Map<number, { ids: number[]; starts: number[] }>();
        for (const [start, floating] of rows) {
          id += 7;
          await sql`insert into copy_occurrences (id, copy_key, item_key, start_ms, end_ms, data, occurrence_id, floating)
            values (${id}, ${copyKey}, 'k', ${start}, ${start + 1_800_000}, ${Buffer.from('packed')}, ${`o${id}`}, ${floating})`.execute(
            handle.db,
          );
          if (floating !== 0) continue;
          const bucket = Math.floor(start / 2 ** 28);
          const held = ofCopy.get(bucket) ?? { ids: [], starts: [] };
          ofCopy.set(bucket, held);
          held.ids.push(id);
          held.starts.push(start);
        }
        expected.set(copyKey, ofCopy);
      }

      assert.deepEqual(await migrateToLatest(handle), ['0031_copy_starts']);
      const read = await bucketStarts(
        handle.db,
        keys.map((copyKey) => ({ copyKey })),
        [6_601, 6_602, 6_603],
      );
      assert.deepEqual(
        new Map(
          [...read].map(([copyKey, ofCopy]) => [
            copyKey,
            new Map([...ofCopy].map(([bucket, bytes]) => [bucket, decodeStarts(bucket, bytes)])),
          ]),
        ),
        expected,
      );
      // A restart runs it no more.
      assert.deepEqual(await migrateToLatest(handle), []);

      // A copy gone takes its starts.
      await handle.db.deleteFrom('calendar_copies').where('copy_key', '=', keys[0]!).execute();
      const left = await handle.db.selectFrom('copy_starts').select('copy_key').distinct().execute();
      assert.deepEqual(
        left.map((row) => Number(row.copy_key)),
        [keys[1]],
      );
    });
  });
}
