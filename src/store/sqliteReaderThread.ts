/**
 * One reader thread of the embedded database (store/sqliteReaders.ts): its own read-only
 * connection to the file, whose statements it keeps by text, running one at a time; and store
 * tasks (store/readerTasks.ts) whole, a read's statements and the work between them.
 * Packed occurrences are unpacked here: each unpacking leaves a zlib stream's garbage, which this
 * thread's small young generation collects at once (on the request thread, with V8's defaults,
 * reading a page of rows for each of 50 people kept ~40 MB more resident).
 * In WAL mode each statement reads the last committed state, as the writing connection leaves it.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { mergedSpans } from '../domain/availability.ts';
import { unpackOccurrence } from './packedOccurrence.ts';
import type { Database } from './schema.ts';
import type { ReadAnswer, ReadQuery, TaskQuery } from './sqliteReaderMessages.ts';

const port = parentPort;
if (port === null) throw new Error('sqliteReaderThread runs as a worker thread');

const db = new DatabaseSync((workerData as { path: string }).path, { readOnly: true });
db.exec('pragma busy_timeout = 5000; pragma query_only = 1;');

/** Statements by text: the reads that come here are a few shapes asked again and again. */
const statements = new Map<string, StatementSync>();
const kept = 64;

function statementFor(sql: string): StatementSync {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    if (statements.size >= kept) statements.delete(statements.keys().next().value!);
    statements.set(sql, statement);
  }
  return statement;
}

/**
 * The store's functions, run here through a Kysely of this thread's connection. Loaded beside the
 * first statements, not before them: the store's modules take a while, and a thread started for
 * a statement would otherwise keep it waiting that long.
 */
const tasks = (async () => {
  const [{ Kysely }, { NodeSqliteDialect }, { readerTasks }] = await Promise.all([
    import('kysely'),
    import('./nodeSqliteDialect.ts'),
    import('./readerTasks.ts'),
  ]);
  const store = new Kysely<Database>({ dialect: new NodeSqliteDialect(() => db) });
  return (query: TaskQuery) => readerTasks[query.task](store, ...query.args);
})();

function runTask(query: TaskQuery): void {
  tasks
    .then((run) => run(query))
    .then(
      (result) => port!.postMessage({ id: query.id, result } satisfies ReadAnswer),
      (error: unknown) =>
        port!.postMessage({
          id: query.id,
          error: error instanceof Error ? error.message : String(error),
        } satisfies ReadAnswer),
    );
}

port.on('message', (query: ReadQuery | TaskQuery) => {
  if ('task' in query) return runTask(query);
  const { id, sql, parameters, answer: how } = query;
  let answer: ReadAnswer;
  try {
    const statement = statementFor(sql);
    if (how === 'spans') {
      statement.setReturnArrays(true);
      try {
        answer = { id, rows: mergedSpans(statement.all(...parameters) as unknown as [number, number][]) };
      } finally {
        statement.setReturnArrays(false);
      }
    } else {
      statement.setReturnArrays(true);
      try {
        const rows = statement.all(...parameters) as unknown as unknown[][];
        const columns = statement.columns().map((column) => column.name);
        if (how !== undefined) {
          const at = columns.indexOf(how.unpack);
          for (const row of rows) row[at] = unpackOccurrence(row[at] as Uint8Array);
        }
        answer = { id, columns, rows };
      } finally {
        statement.setReturnArrays(false);
      }
    }
  } catch (error) {
    answer = { id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(answer);
});
