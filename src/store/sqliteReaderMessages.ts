/**
 * What the request thread and a SQLite reader thread (store/sqliteReaders.ts,
 * store/sqliteReaderThread.ts) send each other.
 */
import type { SQLInputValue } from 'node:sqlite';

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
 */
export type ReadAnswer =
  | { id: number; rows: unknown[]; columns?: string[] }
  | { id: number; result: unknown }
  | { id: number; error: string };

/** The store tasks a thread runs whole (store/readerTasks.ts). */
export type ReaderTask = 'copyPage';

/** A store task run on a thread whole (store/readerTasks.ts): its statements and the work between them, one message each way. */
export interface TaskQuery {
  id: number;
  task: ReaderTask;
  args: unknown[];
}
