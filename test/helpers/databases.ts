/**
 * The storage engines every storage test runs on: embedded SQLite and a real PostgreSQL
 * (TEST_DATABASE_URL, default the local server). Each PostgreSQL handle gets its own database,
 * so test files can run in parallel: schemas would not do, as the migrator's catalog scan
 * fails when another file drops its schema in the middle of it. PostgreSQL being down skips loudly outside CI; in CI it fails.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/store/database.ts';

export const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let reachable: Promise<string | undefined> | undefined;

/** undefined when PostgreSQL answers; otherwise why not. */
export function postgresProblem(): Promise<string | undefined> {
  reachable ??= (async () => {
    const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return undefined;
    } catch (error) {
      return `PostgreSQL at ${postgresUrl} is not reachable: ${(error as Error).message}`;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return reachable;
}

export interface EngineUnderTest {
  name: 'sqlite' | 'postgres';
  /** The name, and how the engine is opened where it differs from the service's default. */
  label: string;
  /** A fresh, migrated, empty database. */
  open(): Promise<DatabaseHandle>;
  /** Set when this engine cannot run here (never in CI: there it throws instead). */
  skip: string | undefined;
}

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A new empty database on the test server, dropped when the handle closes; `url` names it for other processes. */
export async function freshPostgres(): Promise<DatabaseHandle & { url: string }> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  await onServer(`create database ${name}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  const handle = openDatabase({ databaseUrl: url.href, maxConnections: 4 });
  return {
    ...handle,
    url: url.href,
    close: async () => {
      await handle.close();
      // Not `with (force)`: the pool's clients may still be saying goodbye, and the server
      // waits for them rather than cutting them off mid-farewell.
      await onServer(`drop database if exists ${name}`);
    },
  };
}

/** Why `what` must be skipped here, said loudly; undefined when PostgreSQL answers. In CI its absence throws. */
export async function postgresSkip(what: string): Promise<string | undefined> {
  const problem = await postgresProblem();
  if (problem !== undefined && process.env.CI) throw new Error(`${problem} (required in CI)`);
  if (problem !== undefined) process.stderr.write(`\n*** SKIPPING ${what}: ${problem}\n\n`);
  return problem;
}

/**
 * Both engines; with `sqliteReaders`, SQLite a second time as a file read by reader threads
 * (store/sqliteReaders.ts), as the service opens it.
 */
export async function enginesUnderTest(
  options: { sqliteReaders?: boolean } = {},
): Promise<EngineUnderTest[]> {
  const problem = await postgresSkip('PostgreSQL storage tests');
  const sqlite = (label: string, open: () => DatabaseHandle): EngineUnderTest => ({
    name: 'sqlite',
    label,
    skip: undefined,
    open: async () => {
      const handle = open();
      await migrateToLatest(handle);
      return handle;
    },
  });
  return [
    sqlite('sqlite', () => openDatabase({ sqlitePath: ':memory:' })),
    ...(options.sqliteReaders === true
      ? [
          sqlite('sqlite, reader threads', () => {
            const dir = mkdtempSync(join(tmpdir(), 'engine-'));
            const handle = openDatabase({ sqlitePath: join(dir, 'db.sqlite'), readThreads: 2 });
            return {
              ...handle,
              close: async () => {
                await handle.close();
                rmSync(dir, { recursive: true, force: true });
              },
            };
          }),
        ]
      : []),
    {
      name: 'postgres',
      label: 'postgres',
      skip: problem,
      open: async () => {
        const handle = await freshPostgres();
        await migrateToLatest(handle);
        return handle;
      },
    },
  ];
}
