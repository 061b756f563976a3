import { type Kysely, sql } from 'kysely';

/**
 * The read index leads with the copy's number instead of the calendar's 27-byte id (a read knows
 * both): ~24 bytes less an entry, and a new copy's entries go to the index's end (its number is
 * the highest) instead of splitting pages in the middle. Every read of copied rows goes by it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index copy_occurrences_read`.execute(db);
  await sql`create index copy_occurrences_read on copy_occurrences (copy_key, floating, start_ms, end_ms,
    is_free, is_private, status_code, occurrence_id, id)`.execute(db);
}
