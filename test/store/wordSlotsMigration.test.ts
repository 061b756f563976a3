/**
 * Migrations 0028–0030 on both engines: a copy's word lists, one row a word and bucket before,
 * are regrouped into the rows of their slots, their postings as they were (no copy is emptied),
 * and the store reads the regrouped index; the rows, then keyed by the copy's number alone, stay.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { candidateIds, wordCandidates } from '../../src/store/copyWords.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import {
  decodePostings,
  decodeSlot,
  encodePostings,
  slotCount,
  slotOf,
} from '../../src/store/wordPostings.ts';
import { enginesUnderTest, freshPostgres } from '../helpers/databases.ts';
import { seedCalendars, seedReadGrant, seedUser, seedWorkspace } from '../helpers/seed.ts';

for (const engine of await enginesUnderTest()) {
  describe(`word lists regrouped by slot (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    after(() => handle?.close());

    it('moves every list into the row of its word’s slot, its postings unchanged', async () => {
      handle = engine.name === 'postgres' ? await freshPostgres() : openDatabase({ sqlitePath: ':memory:' });
      await migrateToLatest(handle, '0027_copies_numbered');
      const userId = await seedUser(handle.db, 'slots@example.org');
      const owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Slots', [[userId, 'owner']]) };
      const calendars = (await seedCalendars(handle.db, owner, [{ name: 'One' }, { name: 'Two' }])) as [
        string,
        string,
      ];
      await seedReadGrant(handle.db, owner, calendars);
      await reconcileCopies(handle.db, 0);
      const keys = await sql<{ calendar_id: string; copy_key: number }>`select calendar_id, copy_key
        from calendar_copies`.execute(handle.db);
      // Lists as 0027 kept them: many words (more than there are slots), two buckets, two copies.
      const words = [...Array.from({ length: 40 }, (_, i) => `ref${1000 + i}`), 'review', 'überprüfung'];
      const before: string[] = [];
      for (const { calendar_id, copy_key } of keys.rows) {
        await sql`insert into copy_vocabulary (calendar_id, words) values (${calendar_id}, ${`\n${words.join('\n')}\n`})`.execute(
          handle.db,
        );
        for (const [w, word] of words.entries())
          for (const bucket of [6_500, 6_501]) {
            // A row lies in the bucket of its start: rows 1–42 and 100–141 in one, 200–241 in the other.
            const ids = bucket === 6_500 ? [w + 1, w + 100] : [w + 200];
            const bytes = encodePostings({ ids, flags: ids.map(() => (word === 'review' ? 1 : 0)) });
            await sql`insert into copy_words (copy_key, word, bucket, ids)
              values (${copy_key}, ${word}, ${bucket}, ${Buffer.from(bytes)})`.execute(handle.db);
            before.push(`${copy_key} ${bucket} ${word} ${JSON.stringify(decodePostings(bytes))}`);
          }
      }

      assert.deepEqual(await migrateToLatest(handle, '0028_copy_words_in_slots'), [
        '0028_copy_words_in_slots',
      ]);

      const rows = await handle.db
        .selectFrom('copy_words')
        .select(['copy_key', 'slot', 'bucket', 'lists'])
        .execute();
      const afterwards = rows.flatMap((row) =>
        [...decodeSlot(row.lists)].map(([word, ids]) => {
          assert.equal(slotOf(word), row.slot, `${word} in its slot`);
          return `${row.copy_key} ${row.bucket} ${word} ${JSON.stringify(decodePostings(ids))}`;
        }),
      );
      assert.deepEqual(afterwards.sort(), before.sort());
      // Fewer rows than lists: a row a slot, never more slots than there are.
      assert.ok(rows.length <= 2 * 2 * slotCount && rows.length < before.length, String(rows.length));

      // A search reads the regrouped lists: the rows of both buckets, of the words it holds.
      const [first] = keys.rows;
      const found = await wordCandidates(
        handle.db,
        [
          {
            calendarId: first!.calendar_id,
            copyKey: Number(first!.copy_key),
            fromMs: 6_500 * 2 ** 28,
            untilMs: 6_502 * 2 ** 28 - 1,
          },
        ],
        ['review'],
        { titlesOnly: true, privateDetails: false },
      );
      const review = words.indexOf('review');
      assert.deepEqual(
        [...candidateIds(found.get(first!.calendar_id)!)].sort((a, b) => a - b),
        [review + 1, review + 100, review + 200],
      );
      // A row as 0028 kept it (with its calendar's id) stays whole through the next migrations:
      // the read index by the copy's number, the rows without the calendar's id.
      const { calendar_id, copy_key } = keys.rows[1]!;
      await sql`insert into copy_items (copy_key, item_key, version, generation) values (${copy_key}, 'k', '1', 1)`.execute(
        handle.db,
      );
      await sql`insert into copy_occurrences (calendar_id, copy_key, item_key, start_ms, end_ms, data, occurrence_id)
        values (${calendar_id}, ${copy_key}, 'k', 5, 6, ${Buffer.from('packed')}, 'o1')`.execute(handle.db);
      assert.deepEqual(await migrateToLatest(handle, '0030_copy_rows_without_calendar'), [
        '0029_copy_read_index_numbered',
        '0030_copy_rows_without_calendar',
      ]);
      const kept = await handle.db.selectFrom('copy_occurrences').selectAll().execute();
      assert.deepEqual(
        kept.map((row) => [Number(row.copy_key), row.item_key, Number(row.start_ms), row.occurrence_id]),
        [[Number(copy_key), 'k', 5, 'o1']],
      );
      assert.ok(!('calendar_id' in kept[0]!));
      // A restart runs none of them again.
      assert.deepEqual(await migrateToLatest(handle, '0030_copy_rows_without_calendar'), []);

      // A copy gone takes its slots.
      await handle.db.deleteFrom('calendar_copies').where('calendar_id', '=', first!.calendar_id).execute();
      const left = await handle.db.selectFrom('copy_words').select('copy_key').distinct().execute();
      assert.deepEqual(
        left.map((row) => Number(row.copy_key)),
        [Number(keys.rows[1]!.copy_key)],
      );
    });
  });
}
