/**
 * `npm run bench`: throughput and latency of the service's routes against a bare Fastify route
 * returning the same bytes, measured in the same run so the ratio means something on any machine.
 * Grows with the service: the MCP and REST read paths join it as they land.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/http/app.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createSecretBox } from '../src/lib/encryption.ts';
import { migrateToLatest, openDatabase, ping } from '../src/store/database.ts';

const durationSeconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = 10;

interface Figures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

async function measure(name: string, url: string): Promise<Figures> {
  const result = await autocannon({ url, connections, duration: durationSeconds });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

const handle = openDatabase({ sqlitePath: ':memory:' });
await migrateToLatest(handle);
const config = loadConfig({ APP_ENV: 'test', LOG_LEVEL: 'silent' });
const secretKey = randomBytes(32);
const app = await buildApp(
  {
    config,
    db: handle.db,
    clock: systemClock,
    secretKey,
    box: createSecretBox(secretKey),
    providers: {},
    connectors: {},
    ping: () => ping(handle),
  },
  { logger: false },
);
const serviceUrl = await app.listen({ host: '127.0.0.1', port: 0 });

// The baseline serves the very bytes the service answers, with no work behind them.
const readyBody = await (await fetch(`${serviceUrl}/readyz`)).text();
const baseline = Fastify({ logger: false });
baseline.get('/readyz', async (_request, reply) => reply.type('application/json').send(readyBody));
const baselineUrl = await baseline.listen({ host: '127.0.0.1', port: 0 });

const rows = [
  await measure('baseline: bare Fastify, same JSON', `${baselineUrl}/readyz`),
  await measure('GET /readyz (database ping)', `${serviceUrl}/readyz`),
  await measure('GET /healthz', `${serviceUrl}/healthz`),
  await measure('GET /login (page, CSRF cookie)', `${serviceUrl}/login`),
];
await app.close();
await baseline.close();
await handle.close();

const base = rows[0]!.requestsPerSecond;
process.stdout.write(`${connections} connections, ${durationSeconds} s each\n`);
process.stdout.write(
  `${'route'.padEnd(40)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}  ratio\n`,
);
for (const r of rows) {
  process.stdout.write(
    `${r.name.padEnd(40)}${r.requestsPerSecond.toFixed(0).padStart(10)}${String(r.p50).padStart(9)}${String(r.p99).padStart(9)}  ${(r.requestsPerSecond / base).toFixed(2)}\n`,
  );
}
