/**
 * A real PostgreSQL (a cluster of the test's own) restarted and stopped under a running service
 * process: the process never exits; while the database is away every request answers 503
 * `service_unavailable` with Retry-After, promptly, and `/readyz` says 503; once it is back the
 * service serves again by itself within 15 s, and hears the other instances' notices again.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { systemClock } from '../../src/lib/clock.ts';
import { createSecretBox } from '../../src/lib/encryption.ts';
import { markGrantsRevoked } from '../../src/store/accessGrants.ts';
import { openDatabase } from '../../src/store/database.ts';
import { noticeChannels, noticeConnectionName, publishNotice } from '../../src/store/notices.ts';
import { freePort } from '../helpers/freePort.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { clusterMissing, type PgCluster, startCluster } from '../helpers/pgCluster.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';
import { type ServiceProcess, startService } from '../helpers/serviceProcess.ts';

const skip = clusterMissing('the PostgreSQL restart test');

/** A request the service must answer within this, database or not. */
const answerWithinMs = 10_000;
const backWithinMs = 15_000;

describe('PostgreSQL restarted under the service', { skip, timeout: 120_000 }, () => {
  let cluster: PgCluster;
  let service: ServiceProcess;
  let origin: string;
  let token: string;
  let grantId: string;
  const secretKey = randomBytes(32);

  /** The test's own connection, opened for one piece of work: the server may go away between. */
  async function withDb<T>(work: (db: ReturnType<typeof openDatabase>['db']) => Promise<T>): Promise<T> {
    const handle = openDatabase({ databaseUrl: cluster.url, maxConnections: 1 });
    try {
      return await work(handle.db);
    } finally {
      await handle.close();
    }
  }
  const get = (path: string) =>
    fetch(`${origin}${path}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(answerWithinMs),
    });
  async function readyAgain(): Promise<number> {
    const started = performance.now();
    for (;;) {
      const response = await get('/readyz').catch(() => undefined);
      if (response?.status === 200) return performance.now() - started;
      assert.ok(performance.now() - started < backWithinMs, `/readyz not 200 within ${backWithinMs} ms`);
      await delay(100);
    }
  }
  const assertAlive = () =>
    assert.equal(
      service.child.exitCode ?? service.child.signalCode,
      null,
      `the service exited:\n${service.output()}`,
    );

  before(async () => {
    cluster = await startCluster();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    service = startService({
      APP_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: cluster.url,
      SECRET_KEY: secretKey.toString('hex'),
      PORT: String(port),
      BASE_URL: origin,
      SYNC_ROUND_SECONDS: '1',
    });
    await service.started;
    ({ token, grantId } = await withDb(async (db) => {
      const userId = await seedUser(db, 'ana@example.com');
      const workspaceId = await seedWorkspace(db, 'Team', [[userId, 'owner']]);
      const context = {
        db,
        box: createSecretBox(secretKey),
        clock: systemClock,
        config: { environment: 'test' as const, baseUrl: origin },
      };
      return grantToken(context, { userId, workspaceId, calendars: [], resource: 'v1' });
    }));
  });

  after(async () => {
    await service?.kill();
    await cluster?.destroy();
  });

  it('rides out a fast restart while requests come in', async () => {
    assert.equal((await get('/v1/calendars')).status, 200);
    let running = true;
    const statuses = new Set<number | string>();
    const load = (async () => {
      while (running) {
        try {
          const response = await get('/v1/calendars');
          statuses.add(response.status);
          await response.arrayBuffer();
        } catch (error) {
          statuses.add(String(error));
          await delay(100);
        }
      }
    })();
    await cluster.restart();
    try {
      await readyAgain();
    } finally {
      running = false;
      await load;
    }
    assertAlive();
    assert.equal((await get('/v1/calendars')).status, 200);
    const unexpected = [...statuses].filter((status) => status !== 200 && status !== 503);
    assert.deepEqual(unexpected, [], 'only answers, or 503 while the database was away');
  });

  it('answers 503 service_unavailable while the database is away, and serves again when it returns', async () => {
    await cluster.stop();
    for (const path of ['/v1/calendars', '/readyz']) {
      const response = await get(path);
      const body = (await response.json()) as { code: string };
      assert.equal(response.status, 503, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.code, 'service_unavailable');
      assert.ok(Number(response.headers.get('retry-after')) >= 1, `${path} says when to retry`);
    }
    assertAlive();
    await cluster.start();
    await readyAgain();
    assert.equal((await get('/v1/calendars')).status, 200);
    assertAlive();
    const lost = service.logs.filter((line) => line.msg === 'database connection lost');
    assert.ok(lost.length >= 1, 'the loss was logged');
    assert.ok(lost.length <= 4, `the loss was logged once per spell, not per connection (${lost.length})`);
  });

  it('hears the other instances again: a grant revoked elsewhere is refused at once', async () => {
    // Listening again (its last LISTEN done): from here the grant may be cached as live.
    const started = performance.now();
    while (
      !(await withDb(async (db) => {
        const { rows } = await sql<{ query: string }>`select query from pg_stat_activity
          where application_name = ${noticeConnectionName}`.execute(db);
        return rows.some((row) => row.query === `listen ${noticeChannels.signingKeys}`);
      }))
    ) {
      assert.ok(performance.now() - started < backWithinMs, 'the notice connection is not back');
      await delay(100);
    }
    assert.equal((await get('/v1/calendars')).status, 200, 'the grant is live (and cached)');
    await withDb(async (db) => {
      await markGrantsRevoked(db, { id: grantId }, 'revoked elsewhere', Date.now());
      await publishNotice(db, noticeChannels.grantEnded, grantId);
    });
    // The cache would hold the grant for two seconds: refused sooner, it was told.
    const told = performance.now();
    while ((await get('/v1/calendars')).status !== 401) {
      assert.ok(performance.now() - told < 1_000, 'the revocation was not told');
      await delay(20);
    }
    assertAlive();
  });
});
