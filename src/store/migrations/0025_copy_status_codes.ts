import { type Kysely, sql } from 'kysely';

/** An occurrence's status as its copied row keeps it: a read asks only whether it blocks time. */
export async function up(db: Kysely<unknown>): Promise<void> {
  // 'confirmed' in every row and again in the read index: a number instead (0 confirmed,
  // 1 tentative, 2 cancelled; store/schema.ts#statusCodes), ~18 bytes an event.
  for (const table of ['copy_occurrences', 'copy_staged_occurrences']) {
    await db.schema
      .alterTable(table)
      .addColumn('status_code', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update ${sql.table(table)} set status_code = case status when 'tentative' then 1 when 'cancelled' then 2 else 0 end`.execute(
      db,
    );
  }
  await db.schema.dropIndex('copy_occurrences_read').execute();
  for (const table of ['copy_occurrences', 'copy_staged_occurrences'])
    await db.schema.alterTable(table).dropColumn('status').execute();
  await db.schema
    .createIndex('copy_occurrences_read')
    .on('copy_occurrences')
    .columns([
      'calendar_id',
      'floating',
      'start_ms',
      'end_ms',
      'is_free',
      'is_private',
      'status_code',
      'occurrence_id',
      'id',
    ])
    .execute();
}
