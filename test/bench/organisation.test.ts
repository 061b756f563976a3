/**
 * The bench's organisation (bench/organisation.ts): on PostgreSQL it is read as autovacuum would
 * leave it, its copies vacuumed once seeded (a visibility map for index-only scans), whichever
 * bench seeds it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { seedOrganisation } from '../../bench/organisation.ts';
import { benchProvider } from '../../bench/seed.ts';
import { service } from '../../bench/service.ts';
import { freshPostgres, postgresSkip } from '../helpers/databases.ts';

const skip = await postgresSkip('the bench organisation on PostgreSQL');

describe('the bench organisation', { skip }, () => {
  it('is vacuumed once seeded on PostgreSQL: pages of the copied rows, words and items are marked all-visible', async () => {
    const postgres = await freshPostgres();
    const { ctx, sync, close } = await service(
      { google: benchProvider() },
      { databaseUrl: postgres.url, secretKey: randomBytes(32) },
    );
    try {
      await seedOrganisation(ctx, sync, 1);
      // The service itself vacuums the read index's table after syncs; the word index and the
      // items only the seeding does.
      const { rows } = await sql<{
        relname: string;
        relallvisible: number;
      }>`select relname, relallvisible from pg_class where relname in ('copy_occurrences', 'copy_words', 'copy_items') order by relname`.execute(
        postgres.db,
      );
      assert.deepEqual(
        rows.map((row) => [row.relname, Number(row.relallvisible) > 0]),
        [
          ['copy_items', true],
          ['copy_occurrences', true],
          ['copy_words', true],
        ],
        JSON.stringify(rows),
      );
    } finally {
      await close();
      await postgres.close();
    }
  });
});
