import { type Kysely, PostgresAdapter } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // SQLite's second index held every row's texts (over 400 bytes an event) for searches that
  // scanned a window. The word index (0021) now names a search's rows; the few searches left to
  // a scan (a copy not indexed yet, a word inside most words) read the texts from the table.
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await db.schema.dropIndex('copy_occurrences_text').ifExists().execute();
}
