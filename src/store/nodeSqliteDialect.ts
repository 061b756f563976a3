/**
 * Kysely dialect for Node's built-in `node:sqlite`. Kysely's own SQLite dialect expects the
 * better-sqlite3 API; this driver adapts `DatabaseSync` and serialises access to the single
 * connection so that concurrent transactions cannot interleave. A full disk is `storage_full`.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { loopTurns } from '../lib/loopTurns.ts';
import { type RowObject, rowObject, rowObjects } from './rowObjects.ts';
import { storageFull } from './storageFull.ts';

const statementCacheSize = 256;
/** Work on the connection between two turns of the event loop. */
const sliceMs = 10;

export class NodeSqliteDialect implements Dialect {
  readonly #open: () => DatabaseSync;
  constructor(open: () => DatabaseSync) {
    this.#open = open;
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new NodeSqliteDriver(this.#open);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}

class NodeSqliteDriver implements Driver {
  readonly #open: () => DatabaseSync;
  #connection: NodeSqliteConnection | undefined;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(open: () => DatabaseSync) {
    this.#open = open;
  }

  async init(): Promise<void> {
    this.#connection = new NodeSqliteConnection(this.#open());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.#release = release;
    if (this.#connection === undefined) throw new Error('SQLite driver used before init');
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite rolls a transaction back itself on some errors (a full disk): a second rollback
    // would fail and hide that error.
    if (this.#connection?.inTransaction) await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    this.#connection?.close();
    this.#connection = undefined;
  }
}

class NodeSqliteConnection implements DatabaseConnection {
  readonly #db: DatabaseSync;
  /** Prepared statements by SQL, each with how its rows are made objects (none: it returns no rows). */
  readonly #statements = new Map<string, { statement: StatementSync; row: RowObject | undefined }>();
  /** A turn of the loop between this connection's statements, once per slice of work. */
  readonly #turn = loopTurns(sliceMs);

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  get inTransaction(): boolean {
    return this.#db.isTransaction;
  }

  #prepare(sql: string): { statement: StatementSync; row: RowObject | undefined } {
    let prepared = this.#statements.get(sql);
    if (prepared === undefined) {
      const statement = this.#db.prepare(sql);
      const columns = statement.columns().map((column) => column.name);
      // Rows come as arrays and are made objects here (rowObjects.ts says why).
      if (columns.length > 0) statement.setReturnArrays(true);
      prepared = { statement, row: columns.length > 0 ? rowObject(columns) : undefined };
      if (this.#statements.size >= statementCacheSize) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // Statements awaited one after another settle as microtasks: a transaction of many would
    // hold the event loop from its first to its last. After each slice of work, one turn.
    const turn = this.#turn();
    if (turn !== undefined) await turn;
    try {
      return this.#execute(query);
    } catch (error) {
      throw storageFull(error) ?? error;
    }
  }

  #execute<R>(query: CompiledQuery): QueryResult<R> {
    const { statement, row } = this.#prepare(query.sql);
    const parameters = query.parameters.map(toSqliteValue);
    if (row !== undefined) {
      return { rows: rowObjects(row, statement.all(...parameters) as unknown as unknown[][]) as R[] };
    }
    const { changes, lastInsertRowid } = statement.run(...parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered by this driver.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming is not supported by the node:sqlite driver');
  }

  close(): void {
    this.#statements.clear();
    this.#db.close();
  }
}

function toSqliteValue(value: unknown): SQLInputValue {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as SQLInputValue;
}
