import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  // The batches of a sync that has more to come, kept aside until its last batch moves them into
  // copy_items and copy_occurrences in one transaction: readers never see half a sync. Written
  // only by the lease holder; what an interrupted sync left is cleared by the next one.
  await db.schema
    .createTable('copy_staged_items')
    .addColumn('calendar_id', 'text', (c) =>
      c.notNull().references('calendar_copies.calendar_id').onDelete('cascade'),
    )
    .addColumn('item_key', 'text', (c) => c.notNull())
    // Null: the item was removed at the provider.
    .addColumn('version', 'text')
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('skipped_reason', 'text')
    .addPrimaryKeyConstraint('copy_staged_items_pk', ['calendar_id', 'item_key'])
    .execute();
  await db.schema
    .createTable('copy_staged_occurrences')
    .addColumn('calendar_id', 'text', (c) => c.notNull())
    .addColumn('item_key', 'text', (c) => c.notNull())
    .addColumn('start_ms', t.time, (c) => c.notNull())
    .addColumn('end_ms', t.time, (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('title_text', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text', (c) => c.notNull())
    .addForeignKeyConstraint(
      'copy_staged_occurrences_item',
      ['calendar_id', 'item_key'],
      'copy_staged_items',
      ['calendar_id', 'item_key'],
      (c) => c.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('copy_staged_occurrences_item')
    .on('copy_staged_occurrences')
    .columns(['calendar_id', 'item_key'])
    .execute();
  // Items staged so far (a first sync's progress on the account page).
  await db.schema
    .alterTable('calendar_copies')
    .addColumn('staged_items', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  // Each instance says it is alive every few seconds: a lease whose owner has fallen silent is
  // taken over at once instead of when it runs out. No foreign key: leases name owners freely.
  await db.schema
    .createTable('sync_instances')
    .addColumn('owner', 'text', (c) => c.primaryKey())
    .addColumn('seen_at', t.time, (c) => c.notNull())
    .execute();
}
