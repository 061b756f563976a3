/**
 * The read index kept answering from itself on PostgreSQL. A read of the copies walks
 * copy_occurrences_read alone (an index-only scan, store/copyReads.ts), but only on pages the
 * visibility map marks all-visible: every row a sync has just written is fetched from the table
 * as well (a page of 20 calendars' events: 5,059 such fetches, 5.8 ms; vacuumed, 3.7 ms).
 * Autovacuum marks them in its own time, once a fifth of the table has changed by default. Here,
 * once this instance's syncs have written or removed `every` of its rows since the last time,
 * the table is vacuumed: one vacuum at a time, never on a sync's or a read's path, and none while
 * another (autovacuum, another instance) holds the table. SQLite keeps no such map.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

export interface ReadIndexUpkeep {
  /** Told how many of the table's rows a completed sync wrote or removed. */
  changed(rows: number): void;
  /** Resolves once no vacuum runs. */
  idle(): Promise<void>;
}

export function readIndexUpkeep(
  db: Kysely<Database>,
  options: { every: number; onError: (error: unknown) => void },
): ReadIndexUpkeep {
  let since = 0;
  let running: Promise<void> | undefined;
  return {
    changed(rows) {
      since += rows;
      if (since < options.every || running !== undefined) return;
      since = 0;
      // skip_locked: not while another vacuum holds the table.
      running = sql`vacuum (skip_locked) copy_occurrences`
        .execute(db)
        .then(() => {})
        .catch(options.onError)
        .finally(() => {
          running = undefined;
        });
    },
    idle: async () => {
      await running;
    },
  };
}
