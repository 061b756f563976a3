import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // The word index is where a search finds text: a copied row keeps its occurrence alone (its
  // folded texts were ~320 bytes an event). A copy not indexed yet could then answer no search:
  // it is emptied and copied anew by its next sync, as a copy whose grants show less is.
  const unindexed = sql`select calendar_id from calendar_copies where words_indexed = ${postgres ? sql`false` : sql`0`}`;
  for (const table of [
    'copy_occurrences',
    'copy_words',
    'copy_vocabulary',
    'copy_items',
    'copy_staged_occurrences',
    'copy_staged_items',
  ])
    await sql`delete from ${sql.table(table)} where calendar_id in (${unindexed})`.execute(db);
  await sql`update calendar_copies set sync_state = null, synced_at = null, next_sync_at = 0, items = 0,
    skipped = 0, staged_items = 0, longest_ms = 0, version = version + 1
    where calendar_id in (${unindexed})`.execute(db);
  await db.schema.alterTable('calendar_copies').dropColumn('words_indexed').execute();
  for (const column of ['title_text', 'body_text'])
    await db.schema.alterTable('copy_occurrences').dropColumn(column).execute();
}
