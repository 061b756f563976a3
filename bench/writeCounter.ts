/**
 * Counts the rows written to the copies' tables (copy_*) while it is installed: triggers on the
 * bench's own database, so that "a sync with no changes rewrites nothing" is measured on either
 * engine, whatever statements the sync makes.
 */
import { type Kysely, sql } from 'kysely';
import type { Engine } from '../src/store/database.ts';
import type { Database } from '../src/store/schema.ts';

const operations = ['insert', 'update', 'delete'] as const;

async function copyTables(db: Kysely<Database>, engine: Engine): Promise<string[]> {
  const rows =
    engine === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master
          where type = 'table' and name like 'copy\\_%' escape '\\' and sql not like 'create virtual%'`.execute(
          db,
        )
      : await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name like 'copy\\_%'`.execute(
          db,
        );
  return rows.rows.map((row) => row.name);
}

export interface WriteCounter {
  /** Rows written since installed. */
  count(): Promise<number>;
  remove(): Promise<void>;
}

export async function countCopyWrites(db: Kysely<Database>, engine: Engine): Promise<WriteCounter> {
  const tables = await copyTables(db, engine);
  await sql`create table bench_writes (n bigint not null)`.execute(db);
  await sql`insert into bench_writes (n) values (0)`.execute(db);
  if (engine === 'postgres')
    await sql`create function bench_count() returns trigger language plpgsql as $$
      begin update bench_writes set n = n + 1; return null; end $$`.execute(db);
  const triggers: Array<{ name: string; table: string }> = [];
  for (const table of tables) {
    if (engine === 'postgres') {
      const name = `bench_w_${table}`;
      await sql
        .raw(
          `create trigger ${name} after insert or update or delete on ${table} for each row execute function bench_count()`,
        )
        .execute(db);
      triggers.push({ name, table });
    } else
      for (const operation of operations) {
        const name = `bench_w_${table}_${operation}`;
        await sql
          .raw(
            `create trigger ${name} after ${operation} on ${table} begin update bench_writes set n = n + 1; end`,
          )
          .execute(db);
        triggers.push({ name, table });
      }
  }
  return {
    count: async () =>
      Number((await sql<{ n: number | string }>`select n from bench_writes`.execute(db)).rows[0]?.n),
    async remove() {
      for (const { name, table } of triggers)
        await sql
          .raw(engine === 'postgres' ? `drop trigger ${name} on ${table}` : `drop trigger ${name}`)
          .execute(db);
      if (engine === 'postgres') await sql`drop function bench_count()`.execute(db);
      await sql`drop table bench_writes`.execute(db);
    },
  };
}
