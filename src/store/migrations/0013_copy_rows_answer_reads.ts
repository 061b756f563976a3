import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Each copied occurrence carries what a read's query needs, so a read selects, orders, matches
  // and counts in the database and builds only the page it returns: the sealed ids (minted once,
  // at sync), how its start is placed (0: an instant; 1: floating with an elapsed duration;
  // 2: floating with days, its end placed by its own local time), and its privacy and free/busy
  // (which text a reader sees), and its status (the busy time of availability). Rows copied before have none of these: the copies are emptied and
  // resynced in full by the next round (reads are live meanwhile, as for a new copy).
  for (const table of ['copy_occurrences', 'copy_staged_occurrences']) {
    await db.schema
      .alterTable(table)
      .addColumn('event_id', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('occurrence_id', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('floating', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('is_private', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('is_free', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('confirmed'))
      .execute();
  }
  // A read's places, order and count come from this index alone (no text searched): the window's
  // rows are read whole only for the page returned. It leads as the one it replaces did.
  await db.schema
    .createIndex('copy_occurrences_read')
    .on('copy_occurrences')
    .columns(['calendar_id', 'start_ms', 'end_ms', 'floating', 'occurrence_id', 'id'])
    .execute();
  await db.schema.dropIndex('copy_occurrences_window').execute();
  await sql`delete from copy_staged_occurrences`.execute(db);
  await sql`delete from copy_staged_items`.execute(db);
  await sql`delete from copy_occurrences`.execute(db);
  await sql`delete from copy_items`.execute(db);
  await sql`update calendar_copies set sync_state = null, synced_at = null, horizon_start = null,
    horizon_end = null, items = 0, skipped = 0, staged_items = 0, longest_ms = 0, next_sync_at = 0,
    version = version + 1`.execute(db);
}
