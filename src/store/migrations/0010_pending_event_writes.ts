import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A write is recorded as `pending` before the provider is asked and settled after, so a crash in
  // between leaves a record. A create_event with an idempotency key names it (its hash), so that a
  // retry with the same key settles an attempt the crash left pending.
  await db.schema.alterTable('event_writes').addColumn('key_hash', 'text').execute();
}
