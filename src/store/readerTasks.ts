/**
 * Store functions a reader thread runs whole (store/sqliteReaderThread.ts): a read's statements
 * and the work between them — word lists decoded, places chosen — on the thread's connection,
 * one message each way, instead of a message per statement and that work on the request thread.
 */
import { pageOnConnection } from './copyReads.ts';

export const readerTasks = { copyPage: pageOnConnection };

export type ReaderTask = keyof typeof readerTasks;
