import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Copied occurrences are written packed (store/packedOccurrence.ts): bytes. PostgreSQL's text
  // column becomes bytea, the rows there keeping their JSON as its UTF-8 bytes until rewritten;
  // SQLite stores bytes in the column as it is, beside the older rows' text.
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of ['copy_occurrences', 'copy_staged_occurrences'])
    await sql`alter table ${sql.table(table)} alter column data type bytea using convert_to(data, 'UTF8')`.execute(
      db,
    );
}
