/** An in-process application on a fresh in-memory database, with a controllable clock. */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type Config, loadConfig } from '../../src/config/config.ts';
import type { AppContext } from '../../src/context.ts';
import { createLogger } from '../../src/http/logging.ts';
import { createSecretBox } from '../../src/lib/encryption.ts';
import type { GuardedFetchOptions } from '../../src/lib/guardedFetch.ts';
import { createMetrics } from '../../src/lib/metrics.ts';
import { assemble } from '../../src/main.ts';
import { createCalendarAdapters } from '../../src/providers/adapters.ts';
import type { ProviderHttpOptions } from '../../src/providers/providerHttp.ts';
import type { Providers } from '../../src/providers/registry.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase, ping } from '../../src/store/database.ts';
import type { SyncService } from '../../src/sync/syncService.ts';
import { TestClock } from './clock.ts';
import { freePort } from './freePort.ts';

export interface TestApp {
  app: FastifyInstance;
  /** The calendars' copies: tests run its rounds (`runDue`) themselves; none run on a timer. */
  sync: SyncService;
  /** The listener of METRICS_LISTEN when the test's env sets it (not listening yet). */
  metricsServer: FastifyInstance | undefined;
  ctx: AppContext;
  clock: TestClock;
  database: DatabaseHandle;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  database?: DatabaseHandle;
  /** Collects log lines here (logging is off otherwise). */
  logLines?: string[];
  /** Adds routes before the app is sealed. */
  extraRoutes?: (app: FastifyInstance) => void;
  /** Builds the real calendar adapters from the configuration (none otherwise), with these HTTP options. */
  adapters?: ProviderHttpOptions;
  /** Listens on a free loopback port with BASE_URL pointing at it (for clients that use fetch). */
  listen?: boolean;
  /** Loosens the authorization server's outbound guard for the test's own servers (resolver, CA, addresses). */
  outboundGuard?: GuardedFetchOptions;
  /** Calendar adapters to use instead of the configured ones (in-memory providers). */
  providers?: Providers;
  /** The app's clock (to share it with a fake provider); a new TestClock otherwise. */
  clock?: TestClock;
  /** With `listen`: change notifications are asked for at the listening http address (ctx.pushAddress). */
  push?: boolean;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const {
    env = {},
    database,
    logLines,
    extraRoutes,
    adapters,
    listen = false,
    outboundGuard,
    providers,
    clock = new TestClock(),
    push = false,
  } = options;
  const port = listen ? await freePort() : undefined;
  const listening = port === undefined ? {} : { PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` };
  // Tests register many clients from one address and send many requests with one grant; the
  // abuse tests set their own limits.
  const config: Config = loadConfig({
    APP_ENV: 'test',
    LOG_LEVEL: 'silent',
    CLIENT_REGISTRATIONS_PER_MINUTE: '10000',
    GRANT_REQUESTS_PER_MINUTE: '100000',
    ...listening,
    ...env,
  });
  const handle = database ?? openDatabase({ sqlitePath: ':memory:' });
  await migrateToLatest(handle);
  const secretKey = randomBytes(32);
  const metrics = createMetrics();
  const ctx: AppContext = {
    config,
    db: handle.db,
    clock,
    secretKey,
    box: createSecretBox(secretKey),
    ...(adapters === undefined
      ? { providers: {}, connectors: {} }
      : createCalendarAdapters(config, clock, adapters, metrics.providerCall)),
    ...(providers === undefined ? {} : { providers }),
    metrics,
    ping: () => ping(handle),
    ...(outboundGuard ? { outboundGuard } : {}),
    ...(push && port !== undefined ? { pushAddress: `http://127.0.0.1:${port}` } : {}),
  };
  const { app, sync, metricsServer } = await assemble(
    ctx,
    logLines
      ? { log: createLogger(config.logLevel, { write: (line: string) => void logLines.push(line) }) }
      : {},
  );
  extraRoutes?.(app);
  await app.ready();
  if (port !== undefined) await app.listen({ host: '127.0.0.1', port });
  return {
    app,
    sync,
    metricsServer,
    ctx,
    clock,
    database: handle,
    close: async () => {
      await app.close();
      await handle.close();
    },
  };
}
