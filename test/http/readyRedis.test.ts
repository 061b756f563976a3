/**
 * `/readyz` with REDIS_URL, on a Redis server of the test's own, stopped and started again: ready,
 * then degraded (still 200: the budget is counted per instance meanwhile), then ready again once
 * the client has reconnected by itself.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/freePort.ts';

function redisMissing(): string | undefined {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0) return undefined;
  const why = 'redis-server not found (apt-get install redis-server)';
  if (process.env.CI) throw new Error(`${why}; required in CI`);
  process.stderr.write(`\n*** SKIPPING the readiness-with-Redis test: ${why}\n\n`);
  return why;
}
const skip = redisMissing();

/** A Redis keeping nothing on disk; resolves once it accepts connections. */
async function startRedis(port: number): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    server.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
    server.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${output}`)));
  });
  return server;
}

async function stopRedis(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGKILL');
  await exited;
}

describe('/readyz with Redis', { skip }, () => {
  let port: number;
  let redis: ChildProcess;
  let t: TestApp;

  before(async () => {
    port = await freePort();
    redis = await startRedis(port);
    t = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
  });
  after(async () => {
    await t?.close();
    if (redis !== undefined) await stopRedis(redis);
  });

  /** Asks until the answer is `body` (the client notices a loss, and reconnects, by itself). */
  async function readiness(body: unknown, withinMs: number): Promise<void> {
    const started = performance.now();
    for (;;) {
      const response = await t.app.inject('/readyz');
      assert.equal(response.statusCode, 200, response.body);
      if (JSON.stringify(response.json()) === JSON.stringify(body)) return;
      assert.ok(performance.now() - started < withinMs, `not ${JSON.stringify(body)}: ${response.body}`);
      await delay(50);
    }
  }

  it('says ready, degraded while Redis is away, and ready again when it is back', async () => {
    await readiness({ status: 'ready' }, 0);
    await stopRedis(redis);
    await readiness({ status: 'degraded', degraded: ['redis'] }, 5_000);
    redis = await startRedis(port);
    // The client retries with a backoff of at most 5 s.
    await readiness({ status: 'ready' }, 10_000);
  });
});
