/**
 * Store functions a reader thread runs whole (store/sqliteReaderThread.ts): a read's statements
 * and the work between them — word lists decoded, places chosen — on the thread's connection,
 * one message each way, instead of a message per statement and that work on the request thread.
 */
import type { Kysely } from 'kysely';
import { pageOnConnection } from './copyReads.ts';
import type { Database } from './schema.ts';
import type { ReaderTask } from './sqliteReaderMessages.ts';

// biome-ignore lint/suspicious/noExplicitAny: each task's own arguments, as its caller sent them
export const readerTasks: Record<ReaderTask, (db: Kysely<Database>, ...args: any[]) => Promise<unknown>> = {
  copyPage: pageOnConnection,
};
