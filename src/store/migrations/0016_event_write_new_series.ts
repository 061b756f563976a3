import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A write "this and following" splits a series: its record names the new series beside the old.
  await db.schema.alterTable('event_writes').addColumn('new_event_id', 'text').execute();
}
