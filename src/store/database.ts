/** Opens the configured engine (embedded SQLite by default, PostgreSQL with a URL) and migrates it. */
import { closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, PostgresAdapter, PostgresDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import type pg from 'pg';
import { guardedPool } from './connectionLoss.ts';
import { migrations } from './migrations/index.ts';
import { NodeSqliteDialect } from './nodeSqliteDialect.ts';
import { pgDriver } from './pgDriver.ts';
import type { Database } from './schema.ts';
import { attachReaders, sqliteReaders } from './sqliteReaders.ts';

export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  engine: Engine;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; absent → SQLite. */
  databaseUrl?: string | undefined;
  /** SQLite file path, or ':memory:'. */
  sqlitePath?: string;
  maxConnections?: number;
  /** SQLite in a file: threads for the heavy reads (store/sqliteReaders.ts); 0 reads on the one connection. */
  readThreads?: number;
  /** PostgreSQL: a connection died outside a query (told once per spell; the pool connects afresh). */
  onConnectionLost?: (error: unknown) => void;
}

/** Which engine a database handle runs on. */
export const engineOf = (db: Kysely<Database>): Engine =>
  db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';

export const sqlitePathIn = (dataDir: string): string => {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return join(dataDir, 'calendar-access.sqlite');
};

/**
 * Creates the database file 0600 (or narrows an existing one) before SQLite opens it: SQLite gives
 * the -wal and -shm files the main file's mode, so none is readable by other users.
 */
function ownerOnly(path: string): void {
  const fd = openSync(path, 'a', 0o600);
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  if (options.databaseUrl !== undefined) return openPostgres(options.databaseUrl, options);
  const path = options.sqlitePath ?? ':memory:';
  if (path !== ':memory:') ownerOnly(path);
  const db = new Kysely<Database>({
    dialect: new NodeSqliteDialect(() => {
      const sqlite = new DatabaseSync(path);
      // 8 KiB pages for a new file (an existing one keeps its own): a copied row of ~0.5 KiB
      // wastes less of a page's end, ~3% of the copies' bytes.
      sqlite.exec(
        'pragma page_size = 8192; pragma journal_mode = wal; pragma foreign_keys = on; pragma busy_timeout = 5000;',
      );
      sqlite.exec('pragma synchronous = normal;');
      // Deleted rows (purged event texts) are overwritten with zeros, not left in free pages.
      sqlite.exec('pragma secure_delete = on;');
      return sqlite;
    }),
  });
  const threads = path === ':memory:' ? 0 : (options.readThreads ?? 0);
  if (threads === 0) return { db, engine: 'sqlite', close: () => db.destroy() };
  const readers = sqliteReaders(path, threads);
  attachReaders(db, readers);
  return {
    db,
    engine: 'sqlite',
    close: async () => {
      await readers.close();
      await db.destroy();
    },
  };
}

function openPostgres(url: string, options: DatabaseOptions): DatabaseHandle {
  const driver = pgDriver();
  const int8AsNumber = (oid: number, format?: string) =>
    oid === 20 ? (value: string) => Number(value) : driver.types.getTypeParser(oid, format as 'text');
  const pool = new driver.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    types: { getTypeParser: int8AsNumber } as pg.CustomTypesConfig,
    // A server that does not answer fails the request (503) instead of holding it.
    connectionTimeoutMillis: 5_000,
  });
  const guarded = guardedPool(pool, (error) => options.onConnectionLost?.(error));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: guarded }) });
  return { db, engine: 'postgres', close: () => db.destroy() };
}

/** Applies every pending migration (or those up to `upTo`, for a test of one); throws with the failing migration's name. */
export async function migrateToLatest(handle: DatabaseHandle, upTo?: string): Promise<string[]> {
  const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } });
  // SQLite rebuilds a table with foreign keys off (dropping a parent would delete its children),
  // checked before they are on again (a scan of every table: only when a migration runs); the
  // pragma does nothing inside the migrations' transaction.
  const sqlite =
    handle.engine === 'sqlite' &&
    (await migrator.getMigrations()).some((migration) => migration.executedAt === undefined);
  if (sqlite) await sql`pragma foreign_keys = off`.execute(handle.db);
  const { error, results } = await (upTo === undefined
    ? migrator.migrateToLatest()
    : migrator.migrateTo(upTo)
  ).finally(async () => {
    if (!sqlite) return;
    const broken = await sql`pragma foreign_key_check`.execute(handle.db);
    await sql`pragma foreign_keys = on`.execute(handle.db);
    if (broken.rows.length > 0)
      throw new Error(
        `Migrations left rows without their parents: ${JSON.stringify(broken.rows.slice(0, 5))}`,
      );
  });
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * After texts were purged, SQLite's log is written back and emptied (TRUNCATE), so the old
 * pages holding them do not stay in the -wal file; nothing to do on PostgreSQL.
 */
export async function checkpointAfterPurge(db: Kysely<Database>): Promise<void> {
  if (engineOf(db) === 'sqlite') await sql`pragma wal_checkpoint(truncate)`.execute(db);
}

export async function ping(handle: DatabaseHandle): Promise<void> {
  await sql`select 1`.execute(handle.db);
}

/** The database the configuration names: PostgreSQL when DATABASE_URL is set, else the embedded file. */
export function openConfiguredDatabase(
  config: { databaseUrl: string | undefined; dataDir: string; sqliteReadThreads: number },
  onConnectionLost?: (error: unknown) => void,
): DatabaseHandle {
  return config.databaseUrl !== undefined
    ? openDatabase({ databaseUrl: config.databaseUrl, ...(onConnectionLost && { onConnectionLost }) })
    : openDatabase({ sqlitePath: sqlitePathIn(config.dataDir), readThreads: config.sqliteReadThreads });
}
