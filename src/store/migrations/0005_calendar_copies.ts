import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  // The synced copy of one calendar that some live grant reaches: its sync position and health,
  // the lease of the instance syncing it, and what reads need to know (horizon, version).
  await db.schema
    .createTable('calendar_copies')
    .addColumn('calendar_id', 'text', (c) => c.primaryKey().references('calendars.id').onDelete('cascade'))
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('sync_state', 'text')
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('horizon_start', t.time)
    .addColumn('horizon_end', t.time)
    .addColumn('synced_at', t.time)
    .addColumn('attempted_at', t.time)
    .addColumn('next_sync_at', t.time, (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', t.time)
    .addColumn('items', 'integer', (c) => c.notNull())
    .addColumn('skipped', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('longest_ms', t.time, (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('calendar_copies_due').on('calendar_copies').column('next_sync_at').execute();

  // One provider item (event, instance, CalDAV object, feed UID) with its version.
  await db.schema
    .createTable('copy_items')
    .addColumn('calendar_id', 'text', (c) =>
      c.notNull().references('calendar_copies.calendar_id').onDelete('cascade'),
    )
    .addColumn('item_key', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('skipped_reason', 'text')
    .addPrimaryKeyConstraint('copy_items_pk', ['calendar_id', 'item_key'])
    .execute();

  // Occurrences in the horizon: instants for the window query (floating and all-day times read
  // as UTC, placed exactly at read time), the occurrence as the adapter reported it (already
  // reduced to the copied level), and its folded searchable text per field group.
  await db.schema
    .createTable('copy_occurrences')
    .addColumn('id', t.serial, (c) => c.primaryKey())
    .addColumn('calendar_id', 'text', (c) => c.notNull())
    .addColumn('item_key', 'text', (c) => c.notNull())
    .addColumn('start_ms', t.time, (c) => c.notNull())
    .addColumn('end_ms', t.time, (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('title_text', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text', (c) => c.notNull())
    .addForeignKeyConstraint(
      'copy_occurrences_item',
      ['calendar_id', 'item_key'],
      'copy_items',
      ['calendar_id', 'item_key'],
      (c) => c.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('copy_occurrences_window')
    .on('copy_occurrences')
    .columns(['calendar_id', 'start_ms'])
    .execute();
  await db.schema
    .createIndex('copy_occurrences_item')
    .on('copy_occurrences')
    .columns(['calendar_id', 'item_key'])
    .execute();
}
