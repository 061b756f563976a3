/**
 * Composition root: logger → secret key → database → calendar adapters → authorization →
 * application. `assemble` is the one place the parts are put together; the tests and benchmarks
 * use it too, so what they run is what `npm start` runs. The process around it (signals, the
 * sweeper, listening, the first-run link) is start.ts's.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import {
  createGrantBudget,
  type FallbackLog,
  memoryCounter,
  type RequestCounter,
  withFallback,
} from './auth/grantBudget.ts';
import { endGrants } from './auth/grants.ts';
import { type Authorization, startAuthorization } from './auth/setup.ts';
import { clientRegistry } from './auth/workspaceClients.ts';
import type { CalendarDeps } from './calendars/calendarDeps.ts';
import { createEventIds } from './calendars/eventIds.ts';
import { BusyLookups } from './calendars/reads/busyLookups.ts';
import type { Config } from './config/config.ts';
import type { AppContext } from './context.ts';
import { buildApp } from './http/app.ts';
import { createLogger } from './http/logging.ts';
import { buildMetricsServer } from './http/metricsEndpoint.ts';
import { epochMs, systemClock } from './lib/clock.ts';
import { createSecretBox } from './lib/encryption.ts';
import { createMetrics } from './lib/metrics.ts';
import { loadOrCreateKeyFile } from './lib/secretKeyFile.ts';
import { workSlots } from './lib/workSlots.ts';
import type { AdministrationDeps } from './people/administrationPorts.ts';
import { createCalendarAdapters } from './providers/adapters.ts';
import { copiesSummary } from './store/calendarCopies.ts';
import {
  type DatabaseHandle,
  engineOf,
  migrateToLatest,
  openConfiguredDatabase,
  ping,
} from './store/database.ts';
import { countGrantRequests } from './store/grantBudgetWindows.ts';
import { listenForNotices, type NoticeListener, noticeChannels } from './store/notices.ts';
import { WordCache } from './store/wordCache.ts';
import { syncSettings } from './sync/horizon.ts';
import { createPushUpkeep } from './sync/push.ts';
import { createPushNotices } from './sync/pushNotices.ts';
import { createSyncService, type SyncService } from './sync/syncService.ts';
import { sitePages } from './web/sitePages.ts';

/** The service's version, as package.json says; MCP clients see it in the server info. */
const serviceVersion = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface AssembleOptions {
  /** The logger, built before anything that logs; none: nothing is logged (tests, the bench). */
  log?: FastifyBaseLogger;
}

export interface Assembled {
  app: FastifyInstance;
  /** Keeps the calendars' copies; `start` runs its rounds (tests run them by hand). */
  sync: SyncService;
  /** The listener of METRICS_LISTEN (closed with `app`), when configured. */
  metricsServer: FastifyInstance | undefined;
}

/**
 * Where the per-grant request budget is counted: in Redis when configured, else in PostgreSQL
 * (both shared by every instance, this process's own count standing in while they fail), else
 * (SQLite, one process) in memory.
 */
function grantCounter(
  ctx: AppContext,
  fallbackLog: FallbackLog,
  redis: RequestCounter | undefined,
): RequestCounter {
  const local = memoryCounter();
  if (redis !== undefined) return withFallback(redis, local, fallbackLog);
  if (engineOf(ctx.db) === 'postgres')
    return withFallback(
      (grantId, start, requests) => countGrantRequests(ctx.db, grantId, start, requests),
      local,
      fallbackLog,
    );
  return local;
}

/**
 * The application on a context: the authorization server, the calendar services, every surface;
 * with `SMTP_URL`, the mailer. The SMTP and Redis clients are loaded only when configured, as
 * the PostgreSQL driver is (store/pgDriver.ts): a service that does not use them does not hold them.
 */
export async function assemble(given: AppContext, options: AssembleOptions = {}): Promise<Assembled> {
  const { log } = options;
  const mail = given.config.mail;
  const mailer =
    given.mailer ??
    (mail === undefined ? undefined : (await import('./mail/smtpMailer.ts')).createSmtpMailer(mail));
  const withMail: AppContext = mailer === undefined ? given : { ...given, mailer };
  const redisUrl = given.config.redisUrl;
  const redis =
    redisUrl === undefined
      ? undefined
      : await import('./auth/redisCounter.ts').then(({ connectRedis, redisCounter }) => {
          const connection = connectRedis(redisUrl, (error) =>
            log?.warn({ err: error }, 'Redis connection failed'),
          );
          return { ...connection, counter: redisCounter(connection.client, 'calendar-access:') };
        });
  // The first requests are counted in Redis too, unless it does not answer at once.
  await redis?.firstAttempt;
  // Redis away, each instance counts its own budget: ready, but degraded.
  const ctx: AppContext =
    redis === undefined ? withMail : { ...withMail, degraded: () => (redis.client.isReady ? [] : ['redis']) };
  const counter = grantCounter(
    ctx,
    {
      failing: (error) =>
        log?.warn({ err: error }, 'shared request budget unavailable: each instance counts its own'),
      recovered: () => log?.info('shared request budget available again'),
    },
    redis?.counter,
  );
  const auth = await startAuthorization(
    ctx,
    sitePages(ctx),
    createGrantBudget(counter, ctx.clock, ctx.config.grantRequestsPerMinute),
  );
  const notices = listenToOtherInstances(ctx, auth, log);
  const administration: AdministrationDeps = {
    db: ctx.db,
    clock: ctx.clock,
    linkBase: () => ctx.config.baseUrl,
    mailer: ctx.mailer,
    onMailFailure: (failure) => log?.warn({ mail: failure }, 'invitation e-mail not sent'),
    endGrants: (grantIds) => endGrants(auth.grants, grantIds),
    forgetGrants: auth.grants.forget,
    clients: clientRegistry(auth.grants.provider),
  };
  const account = { db: ctx.db, clock: ctx.clock, box: ctx.box, providers: ctx.providers };
  // Providers notify only https addresses.
  const pushAddress =
    ctx.pushAddress ?? (ctx.config.baseUrl.startsWith('https:') ? ctx.config.baseUrl : undefined);
  const upkeep =
    pushAddress === undefined
      ? undefined
      : createPushUpkeep({
          ...account,
          address: pushAddress,
          // Which calendar, which step, why; never content or tokens.
          log: (entry) => log?.warn(entry, 'push channel failed'),
        });
  // One codec: the sync seals the ids of what it copies, the reads and writes open them.
  const ids = createEventIds(ctx.secretKey);
  const sync = createSyncService(
    {
      ...account,
      ids,
      owner: `instance-${randomUUID()}`,
      settings: syncSettings(ctx.config.sync),
      // Which calendar and what came of it; never content.
      log: (entry) => {
        ctx.metrics.sync(entry.provider, entry.reason ?? entry.outcome, entry.durationMs / 1000);
        if (entry.outcome === 'failed') log?.warn(entry, 'calendar sync failed');
        else log?.info(entry, 'calendar synced');
      },
    },
    {
      engine: engineOf(ctx.db),
      onRoundError: (error) => log?.error({ err: error }, 'sync round failed'),
      onVacuumError: (error) => log?.warn({ err: error }, 'read index vacuum failed'),
      // A read waits for a stale calendar's sync no longer than one provider request may take.
      readWaitMs: Math.min(ctx.config.providerTimeoutMs, 5_000),
      ...(upkeep === undefined ? {} : { push: upkeep }),
    },
  );
  const push =
    upkeep &&
    createPushNotices({
      db: ctx.db,
      upkeep,
      sync,
      onError: (calendarId, error) => log?.warn({ calendarId, err: error }, 'push notification not followed'),
    });
  const readSlots = workSlots(ctx.config.readsAtOnce);
  ctx.metrics.readReadsWaiting(() => readSlots.waiting);
  const wordCache = new WordCache(ctx.config.searchCacheBytes, ctx.metrics.searchCacheLookup);
  ctx.metrics.readSearchCacheBytes(() => wordCache.bytes);
  const calendars: CalendarDeps = {
    ...account,
    ids,
    // Two provider timeouts: room for one retry of an idempotent read, and no more.
    readDeadlineMs: 2 * ctx.config.providerTimeoutMs,
    readSlots,
    copies: sync,
    busyLookups: new BusyLookups(ctx.clock),
    wordCache,
  };
  const app = await buildApp(
    ctx,
    {
      auth,
      calendars,
      administration,
      version: serviceVersion,
      ...(upkeep && push ? { push: { notices: push, upkeep } } : {}),
    },
    log,
  );
  ctx.metrics.readCopyHealth(async () => {
    const { copies, failing, oldestSyncedAt } = await copiesSummary(ctx.db);
    const ageMs = oldestSyncedAt === null ? 0 : Math.max(0, epochMs(ctx.clock) - oldestSyncedAt);
    return { copies, failing, oldestAgeSeconds: ageMs / 1000 };
  });
  const metricsServer = await buildMetricsServer(ctx, app.log);
  app.addHook('onClose', async () => {
    await metricsServer?.close();
    mailer?.close();
    await sync.stop();
    await notices?.close();
    redis?.client.destroy();
  });
  await notices?.listening;
  return { app, sync, metricsServer };
}

/**
 * On PostgreSQL, what the other instances tell: a grant ended (forgotten at once), the signing
 * keys changed (loaded again). After each (re)connection, what may have been missed is caught up.
 */
function listenToOtherInstances(
  ctx: AppContext,
  auth: Authorization,
  log: FastifyBaseLogger | undefined,
): NoticeListener | undefined {
  if (engineOf(ctx.db) !== 'postgres' || ctx.config.databaseUrl === undefined) return undefined;
  const reloadKeys = () =>
    void auth.reloadKeys().catch((error: unknown) => log?.error({ err: error }, 'signing keys not reloaded'));
  return listenForNotices(ctx.config.databaseUrl, {
    onNotice(channel, payload) {
      if (channel === noticeChannels.grantEnded) auth.verifier.forget(payload);
      else reloadKeys();
    },
    onListening() {
      auth.verifier.forgetAll();
      reloadKeys();
    },
    onError: (error) => log?.warn({ err: error }, 'notices from other instances not received; reconnecting'),
  });
}

/** The service a process runs: the application, its database and its logger. */
export interface Service extends Assembled {
  database: DatabaseHandle;
  log: FastifyBaseLogger;
}

/**
 * The service on its configuration: the logger first, then the secret key, the database
 * (migrated), the calendar adapters and the application.
 */
export async function compose(config: Config): Promise<Service> {
  const log = createLogger(config.logLevel);
  const secretKey = config.secretKey ?? loadOrCreateKeyFile(config.dataDir);
  // Told while the service runs; before (migrating), a lost connection fails the start itself.
  const database = openConfiguredDatabase(config, (error) =>
    log.warn({ err: error }, 'database connection lost'),
  );
  await migrateToLatest(database);
  const metrics = createMetrics();
  const assembled = await assemble(
    {
      config,
      db: database.db,
      clock: systemClock,
      secretKey,
      box: createSecretBox(secretKey),
      ...createCalendarAdapters(config, systemClock, {}, metrics.providerCall),
      metrics,
      ping: () => ping(database),
    },
    { log },
  );
  return { ...assembled, database, log };
}
