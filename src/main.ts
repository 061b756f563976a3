/**
 * Composition root: configuration → secret key → database → calendar adapters → authorization →
 * application → server. `assemble` is the one place the parts are put together; the tests and
 * benchmarks use it too, so what they run is what `npm start` runs.
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
import { type Authorization, startAuthorization } from './auth/setup.ts';
import type { CalendarDeps } from './calendars/calendarDeps.ts';
import { createEventIds } from './calendars/eventIds.ts';
import { BusyLookups } from './calendars/reads/busyLookups.ts';
import { type Config, ConfigError, loadConfig, withPort } from './config.ts';
import type { AppContext } from './context.ts';
import { type BuildOptions, buildApp } from './http/app.ts';
import { buildMetricsServer } from './http/metricsEndpoint.ts';
import { epochMs, systemClock } from './lib/clock.ts';
import { createSecretBox } from './lib/encryption.ts';
import { watchEventLoopStalls } from './lib/eventLoopStalls.ts';
import { freePort } from './lib/freePort.ts';
import { createMetrics } from './lib/metrics.ts';
import { loadOrCreateKeyFile } from './lib/secretKeyFile.ts';
import { sweep, sweepIntervalMs } from './people/housekeeping.ts';
import { issueFirstRunToken } from './people/onboarding.ts';
import { createCalendarAdapters } from './providers/adapters.ts';
import { copiesSummary } from './store/calendarCopies.ts';
import { engineOf, migrateToLatest, openConfiguredDatabase, ping } from './store/database.ts';
import { countGrantRequest } from './store/grantBudgetWindows.ts';
import { listenForNotices, type NoticeListener, noticeChannels } from './store/notices.ts';
import { syncSettings } from './sync/horizon.ts';
import { createPushUpkeep } from './sync/push.ts';
import { createPushNotices } from './sync/pushNotices.ts';
import { createSyncService, type SyncService } from './sync/syncService.ts';
import { sitePages } from './web/sitePages.ts';

const exitConfigError = 78; // EX_CONFIG
/** Closing waits for requests in flight and a running sync; past this, the process exits regardless. */
const shutdownBoundMs = 10_000;

/** The service's version, as package.json says; MCP clients see it in the server info. */
const serviceVersion = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

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
    return withFallback((grantId, start) => countGrantRequest(ctx.db, grantId, start), local, fallbackLog);
  return local;
}

/**
 * The application on a context: the authorization server, the calendar services, every surface;
 * with `SMTP_URL`, the mailer. The SMTP and Redis clients are loaded only when configured, as
 * the PostgreSQL driver is (store/pgDriver.ts): a service that does not use them does not hold them.
 */
export async function assemble(given: AppContext, options: BuildOptions = {}): Promise<Assembled> {
  const mail = given.config.mail;
  const mailer =
    given.mailer ??
    (mail === undefined ? undefined : (await import('./mail/smtpMailer.ts')).createSmtpMailer(mail));
  const withMail: AppContext = mailer === undefined ? given : { ...given, mailer };
  let log: FastifyBaseLogger | undefined;
  const redisFailed = (error: unknown) => log?.warn({ err: error }, 'Redis connection failed');
  // Told before the logger exists (a first attempt that failed): logged once it does.
  let earlyRedisError: unknown;
  const redisUrl = given.config.redisUrl;
  const redis =
    redisUrl === undefined
      ? undefined
      : await import('./auth/redisCounter.ts').then(({ connectRedis, redisCounter }) => {
          const connection = connectRedis(redisUrl, (error) => {
            if (log === undefined) earlyRedisError = error;
            else redisFailed(error);
          });
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
  const notices = listenToOtherInstances(ctx, auth, () => log);
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
  const calendars: CalendarDeps = {
    ...account,
    ids,
    // Two provider timeouts: room for one retry of an idempotent read, and no more.
    readDeadlineMs: 2 * ctx.config.providerTimeoutMs,
    copies: sync,
    copyReadsAtOnce: engineOf(ctx.db) === 'postgres' ? 4 : 1,
    busyLookups: new BusyLookups(ctx.clock),
  };
  const app = await buildApp(
    ctx,
    {
      auth,
      calendars,
      version: serviceVersion,
      ...(upkeep && push ? { push: { notices: push, upkeep } } : {}),
    },
    options,
  );
  log = app.log;
  if (earlyRedisError !== undefined) redisFailed(earlyRedisError);
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
  log: () => FastifyBaseLogger | undefined,
): NoticeListener | undefined {
  if (engineOf(ctx.db) !== 'postgres' || ctx.config.databaseUrl === undefined) return undefined;
  const reloadKeys = () =>
    void auth
      .reloadKeys()
      .catch((error: unknown) => log()?.error({ err: error }, 'signing keys not reloaded'));
  return listenForNotices(ctx.config.databaseUrl, {
    onNotice(channel, payload) {
      if (channel === noticeChannels.grantEnded) auth.verifier.forget(payload);
      else reloadKeys();
    },
    onListening() {
      auth.verifier.forgetAll();
      reloadKeys();
    },
    onError: (error) =>
      log()?.warn({ err: error }, 'notices from other instances not received; reconnecting'),
  });
}

async function start(loaded: Config): Promise<void> {
  // PORT=0: the port is chosen now, so the links, the issuer and the set-up link name the real one.
  const config = loaded.port === 0 ? withPort(loaded, await freePort(loaded.host)) : loaded;
  const secretKey = config.secretKey ?? loadOrCreateKeyFile(config.dataDir);
  let log: FastifyBaseLogger | undefined;
  // Told while the service runs; before (migrating), a lost connection fails the start itself.
  const database = openConfiguredDatabase(config, (error) =>
    log?.warn({ err: error }, 'database connection lost'),
  );
  await migrateToLatest(database);
  const metrics = createMetrics();
  const { app, sync, metricsServer } = await assemble({
    config,
    db: database.db,
    clock: systemClock,
    secretKey,
    box: createSecretBox(secretKey),
    ...createCalendarAdapters(config, systemClock, {}, metrics.providerCall),
    metrics,
    ping: () => ping(database),
  });
  log = app.log;
  const stopStallWatch = watchEventLoopStalls((delayMs) =>
    app.log.warn({ delayMs: Math.round(delayMs) }, 'event loop stalled'),
  );

  const sweeper = setInterval(() => {
    sweep(database.db, systemClock).catch((error: unknown) =>
      app.log.error({ err: error }, 'housekeeping failed'),
    );
  }, sweepIntervalMs);
  sweeper.unref();

  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    setTimeout(() => {
      app.log.error({ signal, boundMs: shutdownBoundMs }, 'shutdown took too long: exiting now');
      process.exit(1);
    }, shutdownBoundMs).unref();
    clearInterval(sweeper);
    stopStallWatch();
    try {
      await app.close();
      await database.close();
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ host: config.host, port: config.port });
  const metricsAt =
    metricsServer !== undefined && config.metrics.listen !== undefined
      ? `, metrics at ${await metricsServer.listen(config.metrics.listen)}/metrics`
      : '';
  sync.start(config.sync.roundSeconds * 1000);
  const storage = database.engine === 'sqlite' ? `embedded SQLite in ${config.dataDir}` : 'PostgreSQL';
  process.stdout.write(
    `Calendar Access Service (${config.environment}) on ${config.baseUrl}, storage: ${storage}${metricsAt}\n`,
  );

  const token = await issueFirstRunToken(database.db, systemClock);
  if (token !== undefined) {
    process.stdout.write(
      [
        '',
        'No one has an account yet. To create the first owner and workspace, open this',
        'single-use link within 24 hours (a restart issues a new one):',
        '',
        `  ${config.baseUrl}/setup?token=${token}`,
        '',
        'or use the CLI: npm run cli -- user create --email you@example.com --password …',
        '',
      ].join('\n'),
    );
  }
}

if (import.meta.main) {
  try {
    await start(loadConfig(process.env));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(exitConfigError);
    }
    process.stderr.write(`Failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
