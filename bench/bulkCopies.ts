/**
 * The multi-user benchmark's bulk path: a synced calendar's copy given to another calendar by
 * SQL (its state and every row of the copy tables, calendar id replaced), so that an organisation
 * of 50 people × 20,000 events is seeded within the bench's time. Columns and tables are read
 * from the database, so the path follows the schema: every table named copy_* (or holding
 * occurrences) with a calendar_id column.
 */
import { type Kysely, sql } from 'kysely';
import type { Engine } from '../src/store/database.ts';
import type { Database } from '../src/store/schema.ts';

interface Column {
  name: string;
  /** Filled by the database itself (a rowid alias, an identity, a sequence, a generated column). */
  generated: boolean;
}

async function columnsOf(db: Kysely<Database>, engine: Engine, table: string): Promise<Column[]> {
  if (engine === 'sqlite') {
    const rows = await sql<{ name: string; pk: number; type: string }>`select name, pk, type
      from pragma_table_xinfo(${table}) where hidden = 0`.execute(db);
    const keys = rows.rows.filter((row) => row.pk > 0);
    return rows.rows.map((row) => ({
      name: row.name,
      generated: keys.length === 1 && row.pk === 1 && row.type.toLowerCase() === 'integer',
    }));
  }
  const rows = await sql<{
    column_name: string;
    column_default: string | null;
    is_identity: string;
    is_generated: string;
  }>`select column_name, column_default, is_identity, is_generated from information_schema.columns
    where table_schema = current_schema() and table_name = ${table}`.execute(db);
  return rows.rows.map((row) => ({
    name: row.column_name,
    generated:
      row.is_identity === 'YES' ||
      row.is_generated === 'ALWAYS' ||
      (row.column_default ?? '').startsWith('nextval('),
  }));
}

async function tables(db: Kysely<Database>, engine: Engine): Promise<string[]> {
  const rows =
    engine === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
  return rows.rows.map((row) => row.name).filter((name) => /copy_|occurrence/.test(name));
}

/** Copies every synced copy `from` onto the copy `to` (both existing, `to` empty), in one transaction. */
export async function copyCopies(
  db: Kysely<Database>,
  engine: Engine,
  pairs: Array<{ from: string; to: string }>,
): Promise<void> {
  const kept = ['calendar_id', 'created_at', 'lease_owner', 'lease_until'];
  const state = (await columnsOf(db, engine, 'calendar_copies'))
    .filter((column) => !column.generated && !kept.includes(column.name))
    .map((column) => sql.id(column.name));
  const copied: Array<{ table: string; columns: Column[] }> = [];
  for (const table of await tables(db, engine)) {
    const columns = (await columnsOf(db, engine, table)).filter((column) => !column.generated);
    if (columns.some((column) => column.name === 'calendar_id')) copied.push({ table, columns });
  }
  await db.transaction().execute(async (trx) => {
    for (const { from, to } of pairs) {
      await sql`update calendar_copies set (${sql.join(state)}) =
        (select ${sql.join(state)} from calendar_copies where calendar_id = ${from})
        where calendar_id = ${to}`.execute(trx);
      for (const { table, columns } of copied)
        await sql`insert into ${sql.id(table)} (${sql.join(columns.map((column) => sql.id(column.name)))})
          select ${sql.join(columns.map((column) => (column.name === 'calendar_id' ? sql`${to}` : sql.id(column.name))))}
          from ${sql.id(table)} where calendar_id = ${from}`.execute(trx);
    }
  });
}
