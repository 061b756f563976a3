/**
 * One reader thread of the embedded database (store/sqliteReaders.ts): its own read-only
 * connection to the file, whose statements it keeps by text, answering one query at a time.
 * In WAL mode each statement reads the last committed state, as the writing connection leaves it.
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

export interface ReadQuery {
  id: number;
  sql: string;
  parameters: SQLInputValue[];
}

export type ReadAnswer = { id: number; rows: unknown[] } | { id: number; error: string };

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

port.on('message', ({ id, sql, parameters }: ReadQuery) => {
  let answer: ReadAnswer;
  try {
    answer = { id, rows: statementFor(sql).all(...parameters) };
  } catch (error) {
    answer = { id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(answer);
});
