import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // SQLite kept an item's key twice: in the table (beside a rowid no one reads) and in the index
  // of its primary key, ~50 bytes an event. Keyed by itself, the table is that index. Rebuilt as
  // SQLite's documentation rebuilds a table: with foreign keys off (database.ts#migrateToLatest),
  // so that dropping the old table takes no occurrence with it.
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await sql`create table copy_items_keyed (
    calendar_id text not null references calendar_copies (calendar_id) on delete cascade,
    item_key text not null,
    version text not null,
    generation integer not null,
    skipped_reason text,
    constraint copy_items_pk primary key (calendar_id, item_key)
  ) without rowid`.execute(db);
  await sql`insert into copy_items_keyed (calendar_id, item_key, version, generation, skipped_reason)
    select calendar_id, item_key, version, generation, skipped_reason from copy_items`.execute(db);
  await sql`drop table copy_items`.execute(db);
  await sql`alter table copy_items_keyed rename to copy_items`.execute(db);
}
