/**
 * The multi-user benchmark's bulk path: a synced calendar's copy given to another calendar by
 * SQL (its state and every row of the copy tables, calendar id and copy number replaced), so that
 * an organisation of 50 people × 20,000 events is seeded within the bench's time. Columns and
 * tables are read from the database, so the path follows the schema: every table named copy_*
 * (or holding occurrences) with a calendar_id or copy_key column. The copied occurrences keep
 * their ids shifted by one offset, so the word index's lists (copy_words, naming rows by id) are
 * copied with their first id shifted by it (store/wordPostings.ts#shiftPostings), and the
 * buckets' starts (copy_starts) with every id shifted.
 */
import { type Kysely, sql } from 'kysely';
import { decodeStarts, encodeStarts } from '../src/store/bucketStarts.ts';
import { copyKeyOf } from '../src/store/calendarCopies.ts';
import type { Engine } from '../src/store/database.ts';
import type { Database } from '../src/store/schema.ts';
import { decodeSlot, encodeSlot, shiftPostings } from '../src/store/wordPostings.ts';

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

/** The copy tables, each after the tables its foreign keys name (items before their occurrences). */
async function tables(db: Kysely<Database>, engine: Engine): Promise<string[]> {
  const rows =
    engine === 'sqlite'
      ? await sql<{ name: string; parent: string | null }>`select m.name, f."table" as parent
          from sqlite_master m left join pragma_foreign_key_list(m.name) f where m.type = 'table'`.execute(db)
      : await sql<{ name: string; parent: string | null }>`select t.table_name as name, p.table_name as parent
          from information_schema.tables t
          left join information_schema.table_constraints c on c.table_schema = t.table_schema
            and c.table_name = t.table_name and c.constraint_type = 'FOREIGN KEY'
          left join information_schema.constraint_column_usage p on p.constraint_schema = c.constraint_schema
            and p.constraint_name = c.constraint_name
          where t.table_schema = current_schema() and t.table_type = 'BASE TABLE'`.execute(db);
  const parents = new Map<string, Set<string>>();
  for (const { name, parent } of rows.rows) {
    if (!/copy_|occurrence/.test(name)) continue;
    const held = parents.get(name) ?? new Set<string>();
    parents.set(name, held);
    if (parent !== null && parent !== name) held.add(parent);
  }
  const ordered: string[] = [];
  const visit = (name: string) => {
    if (ordered.includes(name) || !parents.has(name)) return;
    for (const parent of parents.get(name)!) visit(parent);
    ordered.push(name);
  };
  for (const name of parents.keys()) visit(name);
  return ordered;
}

/** Copies every synced copy `from` onto the copy `to` (both existing, `to` empty), in one transaction. */
export async function copyCopies(
  db: Kysely<Database>,
  engine: Engine,
  pairs: Array<{ from: string; to: string }>,
): Promise<void> {
  const kept = ['calendar_id', 'copy_key', 'created_at', 'lease_owner', 'lease_until'];
  const state = (await columnsOf(db, engine, 'calendar_copies'))
    .filter((column) => !column.generated && !kept.includes(column.name))
    .map((column) => sql.id(column.name));
  const copied: Array<{ table: string; columns: Column[] }> = [];
  const keyed = (column: Column) => column.name === 'calendar_id' || column.name === 'copy_key';
  for (const table of await tables(db, engine)) {
    // The word lists and starts are copied below, the ids they name shifted.
    if (table === 'copy_words' || table === 'copy_starts') continue;
    const columns = (await columnsOf(db, engine, table)).filter((column) => !column.generated);
    if (columns.some(keyed)) copied.push({ table, columns });
  }
  await db.transaction().execute(async (trx) => {
    for (const { from, to } of pairs) {
      await sql`update calendar_copies set (${sql.join(state)}) =
        (select ${sql.join(state)} from calendar_copies where calendar_id = ${from})
        where calendar_id = ${to}`.execute(trx);
      // Rows name their copy by its calendar (its state) or its number (items, rows, word lists).
      const fromKey = (await copyKeyOf(trx, from).executeTakeFirstOrThrow()).copy_key;
      const toKey = (await copyKeyOf(trx, to).executeTakeFirstOrThrow()).copy_key;
      const span = await sql<{ low: number | string | null; high: number | string | null }>`
        select (select min(id) from copy_occurrences where copy_key = ${fromKey}) as low,
          (select max(id) from copy_occurrences) as high`.execute(trx);
      const offset = Number(span.rows[0]?.high ?? 0) + 1 - Number(span.rows[0]?.low ?? 0);
      for (const { table, columns } of copied) {
        const names = columns.map((column) => column.name);
        const values = columns.map((column) =>
          column.name === 'calendar_id'
            ? sql`${to}`
            : column.name === 'copy_key'
              ? sql`${toKey}`
              : sql.id(column.name),
        );
        if (table === 'copy_occurrences') {
          names.push('id');
          values.push(sql`id + ${offset}`);
        }
        const whose = names.includes('calendar_id') ? sql`calendar_id = ${from}` : sql`copy_key = ${fromKey}`;
        await sql`insert into ${sql.id(table)} (${sql.join(names.map((name) => sql.id(name)))})
          select ${sql.join(values)} from ${sql.id(table)} where ${whose}`.execute(trx);
      }
      const slots = await trx
        .selectFrom('copy_words')
        .select(['bucket', 'slot', 'lists'])
        .where('copy_key', '=', fromKey)
        // In the index's order, as a sync writes them (store/copyWords.ts#indexRows).
        .orderBy('slot')
        .orderBy('bucket')
        .execute();
      for (let i = 0; i < slots.length; i += 1000)
        await trx
          .insertInto('copy_words')
          .values(
            slots.slice(i, i + 1000).map((row) => ({
              copy_key: toKey,
              bucket: row.bucket,
              slot: row.slot,
              lists: encodeSlot(
                new Map([...decodeSlot(row.lists)].map(([word, ids]) => [word, shiftPostings(ids, offset)])),
              ),
            })),
          )
          .execute();
      const starts = await trx
        .selectFrom('copy_starts')
        .select(['bucket', 'starts'])
        .where('copy_key', '=', fromKey)
        .execute();
      for (let i = 0; i < starts.length; i += 1000)
        await trx
          .insertInto('copy_starts')
          .values(
            starts.slice(i, i + 1000).map((row) => {
              const held = decodeStarts(row.bucket, row.starts);
              return {
                copy_key: toKey,
                bucket: row.bucket,
                starts: encodeStarts(row.bucket, { ...held, ids: held.ids.map((id) => id + offset) }),
              };
            }),
          )
          .execute();
    }
    // PostgreSQL's sequence must pass the ids given (SQLite takes the highest plus one itself).
    if (engine === 'postgres')
      await sql`select setval(pg_get_serial_sequence('copy_occurrences', 'id'), (select max(id) from copy_occurrences))`.execute(
        trx,
      );
  });
}
