/**
 * The service process (`npm start`): the service composed by main.ts, then what only a running
 * process does — listening, the sync rounds, the hourly sweep, the event-loop watch, shutdown on
 * SIGTERM/SIGINT within a bound, the start line and the first-run link.
 */
import { type Config, ConfigError, loadConfig, withPort } from './config/config.ts';
import { systemClock } from './lib/clock.ts';
import { watchEventLoopStalls } from './lib/eventLoopStalls.ts';
import { freePort } from './lib/freePort.ts';
import { compose } from './main.ts';
import { sweep, sweepIntervalMs } from './people/housekeeping.ts';
import { issueFirstRunToken } from './people/onboarding.ts';

const exitConfigError = 78; // EX_CONFIG
/** Closing waits for requests in flight and a running sync; past this, the process exits regardless. */
const shutdownBoundMs = 10_000;

async function start(loaded: Config): Promise<void> {
  // PORT=0: the port is chosen now, so the links, the issuer and the set-up link name the real one.
  const config = loaded.port === 0 ? withPort(loaded, await freePort(loaded.host)) : loaded;
  const { app, sync, metricsServer, database, log } = await compose(config);
  const stopStallWatch = watchEventLoopStalls((delayMs) =>
    log.warn({ delayMs: Math.round(delayMs) }, 'event loop stalled'),
  );

  const sweeper = setInterval(() => {
    sweep(database.db, systemClock).catch((error: unknown) =>
      log.error({ err: error }, 'housekeeping failed'),
    );
  }, sweepIntervalMs);
  sweeper.unref();

  const shutdown = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    setTimeout(() => {
      log.error({ signal, boundMs: shutdownBoundMs }, 'shutdown took too long: exiting now');
      process.exit(1);
    }, shutdownBoundMs).unref();
    clearInterval(sweeper);
    stopStallWatch();
    try {
      await app.close();
      await database.close();
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
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
