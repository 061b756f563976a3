/**
 * One reader thread of the embedded database (store/sqliteReaders.ts): its own read-only
 * connection to the file, whose statements it keeps by text, answering one query at a time.
 * Packed occurrences are unpacked here: each unpacking leaves a zlib stream's garbage, which this
 * thread's small young generation collects at once (on the request thread, with V8's defaults,
 * reading a page of rows for each of 50 people kept ~40 MB more resident).
 * In WAL mode each statement reads the last committed state, as the writing connection leaves it.
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { mergedSpans } from '../domain/availability.ts';
import { unpackOccurrence } from './packedOccurrence.ts';

export interface ReadQuery {
  id: number;
  sql: string;
  parameters: SQLInputValue[];
  /** How the rows are answered: as they are, a column of packed occurrences (store/packedOccurrence.ts) unpacked, or spans merged. */
  answer?: RowsAnswer;
}

/**
 * `spans`: the rows are [start, end] pairs, answered merged where they overlap or touch
 * (domain/availability.ts#mergedSpans): a month of busy calendars is 20,000 rows and a few dozen
 * spans, and rows read as arrays cost a third of rows read as objects.
 */
export type RowsAnswer = { unpack: string } | 'spans';

/**
 * Rows go back as arrays with their column names once (spans as the pairs): read and passed
 * between threads, arrays cost less than objects (a page of events: about 6 % of its time).
 * Rows with unpacked occurrences go as JSON text (`json`): a page of 250 occurrences costs the
 * request thread 0.85 ms to take as a structured clone and 0.45 ms to parse as JSON, and this
 * thread 0.43 ms to clone and 0.22 ms to write as JSON. Those rows' columns are JSON's own
 * (numbers, text, null, the occurrences' plain data), so nothing changes on the way; rows with
 * bytes in another column, which JSON would turn into objects, go as a clone.
 */
export type ReadAnswer =
  | { id: number; rows: unknown[]; columns?: string[] }
  | { id: number; json: string; columns: string[] }
  | { id: number; error: string };

const port = parentPort;
if (port === null) throw new Error('sqliteReaderThread runs as a worker thread');

const db = new DatabaseSync((workerData as { path: string }).path, { readOnly: true });
// A page cache of 4 MB, twice SQLite's default: a page of 250 events lies on as many pages of
// the table (the calendars' rows interleave in time), which the default's 250 pages of 8 KB
// cannot hold, so the same person's next page (an assistant's calls come in runs) read them all
// again from the file; with room for them it costs 40 % less.
db.exec('pragma busy_timeout = 5000; pragma query_only = 1; pragma cache_size = -4096;');

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

port.on('message', ({ id, sql, parameters, answer: how }: ReadQuery) => {
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
        if (how === undefined) answer = { id, columns, rows };
        else {
          const at = columns.indexOf(how.unpack);
          // A row without one (a count beside the rows) keeps its null.
          let bytes = false;
          for (const row of rows) {
            if (row[at] !== null) row[at] = unpackOccurrence(row[at] as Uint8Array);
            bytes ||= row.some((cell) => cell instanceof Uint8Array);
          }
          answer = bytes ? { id, columns, rows } : { id, columns, json: JSON.stringify(rows) };
        }
      } finally {
        statement.setReturnArrays(false);
      }
    }
  } catch (error) {
    answer = { id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(answer);
});
