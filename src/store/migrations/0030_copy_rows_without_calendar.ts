import { type Kysely, sql } from 'kysely';

/**
 * A copied row names its copy by its number alone: the calendar's 27-byte id beside it was read
 * by nothing since the read index leads with the number (a read knows both). PostgreSQL drops
 * the column at once, its bytes leaving each row as it is written again; SQLite rewrites the tables.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['copy_occurrences', 'copy_staged_occurrences'])
    await sql`alter table ${sql.table(table)} drop column calendar_id`.execute(db);
}
