import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // A copy's items, and its rows' link to them, are keyed by the copy's number (0027) instead of
  // the calendar's 27-byte id: on PostgreSQL the items, their key and the rows' index of them fell
  // from ~310 to ~160 bytes an event (a new copy's keys are the highest, so they fill the pages
  // they go to). The rows keep the calendar's id, which orders reads. The copies are emptied and
  // made due, as after 0013: each is copied anew by its next sync, reads going live meanwhile.
  for (const table of [
    'copy_staged_occurrences',
    'copy_staged_items',
    'copy_occurrences',
    'copy_items',
    'copy_words',
    'copy_vocabulary',
  ])
    await sql`delete from ${sql.table(table)}`.execute(db);
  await sql`update calendar_copies set sync_state = null, synced_at = null, horizon_start = null,
    horizon_end = null, items = 0, skipped = 0, staged_items = 0, longest_ms = 0, next_sync_at = 0,
    version = version + 1`.execute(db);

  if (postgres) {
    await sql`alter table copy_occurrences drop constraint copy_occurrences_item`.execute(db);
    await sql`drop index copy_occurrences_item`.execute(db);
    await sql`alter table copy_staged_occurrences drop constraint copy_staged_occurrences_item`.execute(db);
    await sql`drop index copy_staged_occurrences_item`.execute(db);
  } else {
    // SQLite changes no foreign key in place: the emptied tables are made anew (foreign keys
    // are off while migrations run).
    await sql`drop table copy_staged_occurrences`.execute(db);
    await sql`drop table copy_occurrences`.execute(db);
  }
  await sql`drop table copy_staged_items`.execute(db);
  await sql`drop table copy_items`.execute(db);

  const keyed = postgres ? sql`` : sql`without rowid`;
  await sql`create table copy_items (
    copy_key integer not null references calendar_copies (copy_key) on delete cascade,
    item_key text not null,
    version text not null,
    generation integer not null,
    skipped_reason text,
    constraint copy_items_pk primary key (copy_key, item_key)
  ) ${keyed}`.execute(db);
  // Null version: the item was removed at the provider.
  await sql`create table copy_staged_items (
    copy_key integer not null references calendar_copies (copy_key) on delete cascade,
    item_key text not null,
    version text,
    generation integer not null,
    skipped_reason text,
    constraint copy_staged_items_pk primary key (copy_key, item_key)
  ) ${keyed}`.execute(db);

  if (postgres) {
    for (const [table, items] of [
      ['copy_occurrences', 'copy_items'],
      ['copy_staged_occurrences', 'copy_staged_items'],
    ] as const) {
      await sql`alter table ${sql.table(table)} add column copy_key integer not null`.execute(db);
      await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_item`)}
        foreign key (copy_key, item_key) references ${sql.table(items)} (copy_key, item_key) on delete cascade`.execute(
        db,
      );
    }
  } else {
    const columns = (texts: boolean) => sql`calendar_id text not null,
      copy_key integer not null,
      item_key text not null,
      start_ms integer not null,
      end_ms integer not null,
      data text not null,
      ${texts ? sql`title_text text not null, body_text text not null,` : sql``}
      event_id text default '' not null,
      occurrence_id text default '' not null,
      floating integer default 0 not null,
      is_private integer default 0 not null,
      is_free integer default 0 not null,
      status_code integer default 0 not null`;
    await sql`create table copy_occurrences (
      id integer primary key,
      ${columns(false)},
      constraint copy_occurrences_item foreign key (copy_key, item_key)
        references copy_items (copy_key, item_key) on delete cascade
    )`.execute(db);
    await sql`create index copy_occurrences_read on copy_occurrences (calendar_id, floating, start_ms,
      end_ms, is_free, is_private, status_code, occurrence_id, id)`.execute(db);
    await sql`create table copy_staged_occurrences (
      ${columns(true)},
      constraint copy_staged_occurrences_item foreign key (copy_key, item_key)
        references copy_staged_items (copy_key, item_key) on delete cascade
    )`.execute(db);
  }
  await sql`create index copy_occurrences_item on copy_occurrences (copy_key, item_key)`.execute(db);
  await sql`create index copy_staged_occurrences_item on copy_staged_occurrences (copy_key, item_key)`.execute(
    db,
  );
}
