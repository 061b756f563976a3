import { type Kysely, PostgresAdapter } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A window's places and availability's busy time come from the read index alone (it now holds
  // free/busy, privacy and status too). In SQLite a search reads its words from a second index
  // that holds the texts: a row looked up in the table per occurrence cost a search of
  // 20 × 1,000 events half its time, and the texts in the one index would triple what every
  // other read walks. PostgreSQL reads texts from the table: a b-tree entry may not pass ~2.7 kB,
  // and a long description would refuse the whole sync.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // Instants lead apart from floating times: a page of instants comes in the index's order (the
  // engine stops at the page's end), and the few floating rows are a short range of their own.
  await db.schema.dropIndex('copy_occurrences_read').execute();
  await db.schema
    .createIndex('copy_occurrences_read')
    .on('copy_occurrences')
    .columns([
      'calendar_id',
      'floating',
      'start_ms',
      'end_ms',
      'is_free',
      'is_private',
      'status',
      'occurrence_id',
      'id',
    ])
    .execute();
  if (!postgres)
    await db.schema
      .createIndex('copy_occurrences_text')
      .on('copy_occurrences')
      .columns([
        'calendar_id',
        'start_ms',
        'end_ms',
        'floating',
        'is_free',
        'is_private',
        'occurrence_id',
        'title_text',
        'body_text',
      ])
      .execute();
}
