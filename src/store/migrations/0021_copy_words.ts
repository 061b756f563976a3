import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // The word index of a copy (store/copyWords.ts): per word and ~3 days of starts, the ids of the
  // rows whose text holds it, packed; the key is the table (SQLite: no rowid beside it).
  await db.schema
    .createTable('copy_words')
    .addColumn('calendar_id', 'text', (c) =>
      c.notNull().references('calendar_copies.calendar_id').onDelete('cascade'),
    )
    .addColumn('word', 'text', (c) => c.notNull())
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('ids', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('copy_words_pk', ['calendar_id', 'word', 'bucket'])
    .$call((table) => (postgres ? table : table.modifyEnd(sql`without rowid`)))
    .execute();
  // The words a copy's index lists, one per line: a query word is looked up in it by substring.
  await db.schema
    .createTable('copy_vocabulary')
    .addColumn('calendar_id', 'text', (c) =>
      c.primaryKey().references('calendar_copies.calendar_id').onDelete('cascade'),
    )
    .addColumn('words', 'text', (c) => c.notNull())
    .execute();
  // Copies made before have no index yet: their searches read row by row until a sync builds it.
  await db.schema
    .alterTable('calendar_copies')
    .addColumn('words_indexed', t.flag, (c) => c.notNull().defaultTo(postgres ? sql`true` : 1))
    .execute();
  await sql`update calendar_copies set words_indexed = ${postgres ? sql`false` : sql`0`}`.execute(db);
}
