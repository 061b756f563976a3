/**
 * Reader threads for the embedded database. `node:sqlite` is synchronous: a read of a window of
 * thousands of copied rows would hold the event loop for its whole time, and every request
 * waiting behind it. The heavy, repeated reads (a copy's places, busy time and page rows) go to
 * threads with their own read-only connections to the same file (WAL: each read sees the last
 * commit), so the loop stays free and, on a machine with cores to spare, reads run side by side.
 * An in-memory database has no file to share: its reads stay on the one connection.
 */
import type { SQLInputValue } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import type { CompiledQuery, Kysely } from 'kysely';
import { mergedSpans } from '../domain/availability.ts';
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import { unpackColumn } from './packedOccurrence.ts';
import { rowObject, rowObjects } from './rowObjects.ts';
import type { Database } from './schema.ts';
import type { ReadAnswer, ReadQuery, RowsAnswer } from './sqliteReaderThread.ts';

export interface SqliteReaders {
  readonly threads: number;
  /** The rows of one read-only statement, answered as `answer` says (as they are if absent). */
  run(text: string, parameters: readonly unknown[], answer?: RowsAnswer): Promise<unknown[]>;
  close(): Promise<void>;
}

interface Reader {
  worker: Worker;
  waiting: Map<number, { resolve(rows: unknown[]): void; reject(error: Error): void }>;
}

const asSqliteValue = (value: unknown): SQLInputValue =>
  value === undefined ? null : typeof value === 'boolean' ? (value ? 1 : 0) : (value as SQLInputValue);

/** `count` threads reading the database file at `path`, started when first asked. */
export function sqliteReaders(path: string, count: number): SqliteReaders {
  const readers: (Reader | undefined)[] = Array.from({ length: count });
  let nextId = 0;
  let closed = false;

  function start(slot: number): Reader {
    const worker = new Worker(new URL('./sqliteReaderThread.ts', import.meta.url), {
      workerData: { path },
      // A reader holds one answer at a time, a page or a window's places: a bounded heap, and a
      // young generation of 4 MB (V8's default let each thread hold ~40 MB more between collections).
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 4 },
    });
    // A reader with nothing to do never keeps the process alive.
    worker.unref();
    const reader: Reader = { worker, waiting: new Map() };
    worker.on('message', (answer: ReadAnswer) => {
      const waiting = reader.waiting.get(answer.id);
      if (waiting === undefined) return;
      reader.waiting.delete(answer.id);
      if (reader.waiting.size === 0) worker.unref();
      if ('error' in answer) waiting.reject(new Error(answer.error));
      else if ('json' in answer)
        waiting.resolve(rowObjects(rowObject(answer.columns), JSON.parse(answer.json) as unknown[][]));
      else
        waiting.resolve(
          answer.columns === undefined
            ? answer.rows
            : rowObjects(rowObject(answer.columns), answer.rows as unknown[][]),
        );
    });
    // A thread that died fails only the reads it held; the next read starts another.
    const fail = (error: Error) => {
      if (readers[slot] === reader) readers[slot] = undefined;
      for (const waiting of reader.waiting.values()) waiting.reject(error);
      reader.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`SQLite reader thread exited (${code})`)));
    readers[slot] = reader;
    return reader;
  }

  /** The thread with the fewest reads waiting (started if it is not running). */
  function leastBusy(): Reader {
    let best: Reader | undefined;
    for (let slot = 0; slot < count; slot++) {
      const reader = readers[slot] ?? start(slot);
      if (best === undefined || reader.waiting.size < best.waiting.size) best = reader;
      if (best.waiting.size === 0) break;
    }
    return best!;
  }

  return {
    threads: count,
    run(text, parameters, answer) {
      if (closed) return Promise.reject(new Error('SQLite readers closed'));
      const reader = leastBusy();
      const id = nextId++;
      return new Promise<unknown[]>((resolve, reject) => {
        reader.waiting.set(id, { resolve, reject });
        reader.worker.ref();
        const query: ReadQuery = {
          id,
          sql: text,
          parameters: parameters.map(asSqliteValue),
          ...(answer === undefined ? {} : { answer }),
        };
        reader.worker.postMessage(query);
      });
    },
    async close() {
      closed = true;
      await Promise.all(readers.map((reader) => reader?.worker.terminate()));
    },
  };
}

/** The reader threads of each embedded database that has them. */
const readersOf = new WeakMap<Kysely<Database>, SqliteReaders>();

export function attachReaders(db: Kysely<Database>, readers: SqliteReaders): void {
  readersOf.set(db, readers);
}

/** How many reader threads the database has (0: its reads run on its connection). */
export const readerThreads = (db: Kysely<Database>): number => readersOf.get(db)?.threads ?? 0;

/**
 * Runs a read-only statement off the event loop where the database has reader threads, else on
 * its connection. Only for reads that may see the last commit rather than an open transaction's
 * own writes: never inside a transaction.
 */
export async function readOffLoop<R>(db: Kysely<Database>, compiled: CompiledQuery<R>): Promise<R[]> {
  const readers = readersOf.get(db);
  if (readers === undefined) return (await db.executeQuery(compiled)).rows;
  return (await readers.run(compiled.sql, compiled.parameters)) as R[];
}

/**
 * Like `readOffLoop`, with the column `column` of packed occurrences answered unpacked: by the
 * reader thread where there is one, else here.
 */
export async function readUnpackedOffLoop<R, K extends keyof R & string>(
  db: Kysely<Database>,
  compiled: CompiledQuery<R>,
  column: K,
): Promise<Array<Omit<R, K> & Record<K, ProviderOccurrence>>> {
  const readers = readersOf.get(db);
  if (readers !== undefined)
    return (await readers.run(compiled.sql, compiled.parameters, { unpack: column })) as Array<
      Omit<R, K> & Record<K, ProviderOccurrence>
    >;
  const rows = (await db.executeQuery(compiled)).rows as Record<string, unknown>[];
  unpackColumn(rows, column);
  return rows as Array<Omit<R, K> & Record<K, ProviderOccurrence>>;
}

/**
 * The spans of a statement whose rows are (start, end), merged where they overlap or touch and
 * in order of start (domain/availability.ts#mergedSpans): by the reader thread where there is
 * one, else here.
 */
export async function readSpansOffLoop(
  db: Kysely<Database>,
  compiled: CompiledQuery<{ s: number; e: number }>,
): Promise<[number, number][]> {
  const readers = readersOf.get(db);
  if (readers !== undefined)
    return (await readers.run(compiled.sql, compiled.parameters, 'spans')) as [number, number][];
  const rows = (await db.executeQuery(compiled)).rows;
  return mergedSpans(rows.map((row): [number, number] => [Number(row.s), Number(row.e)]));
}
