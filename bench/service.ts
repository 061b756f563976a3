/** The service as the benchmark runs it: on a database of its own, with the providers given, listening on loopback. */
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config/config.ts';
import type { AppContext } from '../src/context.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createSecretBox } from '../src/lib/encryption.ts';
import { createMetrics } from '../src/lib/metrics.ts';
import { assemble } from '../src/main.ts';
import { migrateToLatest, openDatabase, ping } from '../src/store/database.ts';

export interface ServiceOptions {
  /** PostgreSQL; absent → SQLite at `sqlitePath`. */
  databaseUrl?: string;
  /** Default ':memory:'. */
  sqlitePath?: string;
  /** The key the database's secrets were sealed with (another process opening the same database). */
  secretKey?: Buffer;
}

export async function service(providers: AppContext['providers'], options: ServiceOptions = {}) {
  // One grant sends every request: its per-minute budget must not be what is measured. The
  // copies stay fresh through the run (a stale one would be synced by the reads measured).
  const config = loadConfig({
    APP_ENV: 'test',
    LOG_LEVEL: 'silent',
    GRANT_REQUESTS_PER_MINUTE: '10000000',
    SYNC_MAX_AGE_SECONDS: '86400',
    SYNC_HORIZON_PAST_DAYS: '3650',
    // The embedded database's reader threads, slots and search cache, as the environment says (to compare settings).
    ...(process.env.SQLITE_READ_THREADS === undefined
      ? {}
      : { SQLITE_READ_THREADS: process.env.SQLITE_READ_THREADS }),
    ...(process.env.READS_AT_ONCE === undefined ? {} : { READS_AT_ONCE: process.env.READS_AT_ONCE }),
    ...(process.env.SEARCH_CACHE_MB === undefined ? {} : { SEARCH_CACHE_MB: process.env.SEARCH_CACHE_MB }),
  });
  const handle = openDatabase(
    options.databaseUrl === undefined
      ? { sqlitePath: options.sqlitePath ?? ':memory:', readThreads: config.sqliteReadThreads }
      : { databaseUrl: options.databaseUrl },
  );
  await migrateToLatest(handle);
  const secretKey = options.secretKey ?? randomBytes(32);
  const ctx: AppContext = {
    config,
    db: handle.db,
    clock: systemClock,
    secretKey,
    box: createSecretBox(secretKey),
    providers,
    connectors: {},
    metrics: createMetrics(),
    ping: () => ping(handle),
  };
  const { app, sync } = await assemble(ctx);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    ctx,
    app,
    sync,
    url,
    close: async () => {
      await app.close();
      await handle.close();
    },
  };
}
