/**
 * The per-grant request budget on each of its counts: in memory (one process), on a real
 * PostgreSQL and on the real Redis (both shared by instances); the fall-back to the local count
 * while the shared one fails; and which count the composition root chooses.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  createGrantBudget,
  type GrantBudget,
  memoryCounter,
  type RequestCounter,
  withFallback,
} from '../../src/auth/grantBudget.ts';
import { connectRedis, type Redis, redisCounter } from '../../src/auth/redisCounter.ts';
import { AppError } from '../../src/errors.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { countGrantRequests, deletePastBudgetWindows } from '../../src/store/grantBudgetWindows.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClock } from '../helpers/clock.ts';
import { enginesUnderTest, freshPostgres } from '../helpers/databases.ts';
import { freePort } from '../helpers/freePort.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const perMinute = 3;

/** undefined when Redis answers; otherwise why not. */
async function redisProblem(): Promise<string | undefined> {
  const { client, firstAttempt } = connectRedis(redisUrl, () => {});
  try {
    await firstAttempt;
    if (!client.isReady) return `Redis at ${redisUrl} is not reachable`;
    await client.ping();
    return undefined;
  } finally {
    client.destroy();
  }
}

const refused = async (budget: GrantBudget, grantId: string) => {
  let error: unknown;
  await budget.take(grantId).catch((e: unknown) => {
    error = e;
  });
  assert.ok(error instanceof AppError, 'refused');
  return error;
};

/** Resolves when the client is (again) connected. */
async function ready(client: Redis): Promise<void> {
  if (!client.isReady) await new Promise((resolve) => client.once('ready', resolve));
}

interface Store {
  name: string;
  skip: string | undefined;
  /** Two counts on one store, as two instances have; undefined for memory (one process). */
  open(): Promise<{ counters: [RequestCounter, RequestCounter]; close(): Promise<void> }>;
}

const postgres = (await enginesUnderTest()).find((e) => e.name === 'postgres')!;
const redisSkip = await redisProblem();
if (redisSkip !== undefined && process.env.CI) throw new Error(`${redisSkip} (required in CI)`);
if (redisSkip !== undefined) process.stderr.write(`\n*** SKIPPING the Redis budget tests: ${redisSkip}\n\n`);

const stores: Store[] = [
  {
    name: 'memory',
    skip: undefined,
    open: async () => ({ counters: [memoryCounter(), memoryCounter()], close: async () => {} }),
  },
  {
    name: 'postgres',
    skip: postgres.skip,
    open: async () => {
      const handle = await postgres.open();
      const count: RequestCounter = (grantId, start, requests) =>
        countGrantRequests(handle.db, grantId, start, requests);
      return { counters: [count, count], close: () => handle.close() };
    },
  },
  {
    name: 'redis',
    skip: redisSkip,
    open: async () => {
      const prefix = `test-${randomBytes(6).toString('hex')}:`;
      const clients = [connectRedis(redisUrl, () => {}).client, connectRedis(redisUrl, () => {}).client];
      await Promise.all(clients.map(ready));
      return {
        counters: [redisCounter(clients[0]!, prefix), redisCounter(clients[1]!, prefix)],
        close: async () => {
          const keys = await clients[0]!.keys(`${prefix}*`);
          if (keys.length > 0) await clients[0]!.del(keys);
          for (const c of clients) c.destroy();
        },
      };
    },
  },
];

for (const store of stores) {
  describe(`grant budget (${store.name})`, { skip: store.skip }, () => {
    let opened: Awaited<ReturnType<Store['open']>>;
    before(async () => {
      opened = await store.open();
    });
    after(() => opened.close());

    it('takes the budget, then refuses with rate_limited until the window ends; grants apart', async () => {
      const clock = new TestClock('2026-03-29T00:30:15Z');
      const budget = createGrantBudget(opened.counters[0], clock, perMinute);
      for (let i = 0; i < perMinute; i++) await budget.take('grt_a');
      const error = await refused(budget, 'grt_a');
      assert.equal(error.code, 'rate_limited');
      assert.equal(error.retryAfter, 45, 'the seconds left in the window');
      await budget.take('grt_b');
      clock.advance({ seconds: 44 });
      assert.equal((await refused(budget, 'grt_a')).retryAfter, 1);
      clock.advance({ seconds: 1 });
      await budget.take('grt_a');
    });

    it(
      store.name === 'memory'
        ? 'counts per process: a second instance has its own count'
        : 'is one budget for two instances: requests alternating between them are refused after it',
      async () => {
        const clock = new TestClock('2026-03-29T01:00:00Z');
        const [first, second] = opened.counters.map((c) => createGrantBudget(c, clock, perMinute));
        await first!.take('grt_c');
        await second!.take('grt_c');
        await first!.take('grt_c');
        if (store.name === 'memory') {
          // Each has a budget of its own: six requests in all.
          for (const budget of [second!, second!, first!]) await budget.take('grt_c');
          await refused(first!, 'grt_c');
          await refused(second!, 'grt_c');
        } else {
          await refused(second!, 'grt_c');
          await refused(first!, 'grt_c');
        }
      },
    );

    it('claims a busy grant a block at a time: one count in sixteen requests, never past the budget', async () => {
      const clock = new TestClock('2026-03-29T01:10:00Z');
      const budget = 640;
      const claims: number[] = [];
      const counted: RequestCounter = (grantId, start, requests) => {
        claims.push(requests);
        return opened.counters[0](grantId, start, requests);
      };
      const [first, second] = [counted, opened.counters[1]].map((c) => createGrantBudget(c, clock, budget));
      // 300 one after another: claims of 1, 2, 4, 8, then 16 each.
      for (let i = 0; i < 300; i++) await first!.take('grt_d');
      assert.deepEqual(claims.slice(0, 6), [1, 2, 4, 8, 16, 16]);
      assert.equal(
        claims.length,
        22,
        '1 + 2 + 4 + 8 = 15, then 285 in blocks of 16 (the last one part spent)',
      );
      // The rest side by side on both instances: the budget holds, less at most a block per instance.
      const outcomes = await Promise.allSettled(
        Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? first! : second!).take('grt_d')),
      );
      for (const o of outcomes)
        if (o.status === 'rejected') assert.equal((o.reason as AppError).code, 'rate_limited');
      // What either still holds of its last claim is spent before it is refused.
      const spend = async (budget: GrantBudget) => {
        let spent = 0;
        while (
          await budget.take('grt_d').then(
            () => true,
            () => false,
          )
        )
          spent += 1;
        return spent;
      };
      const left = [await spend(first!), await spend(second!)];
      if (store.name !== 'memory')
        for (const spent of left) assert.ok(spent < 16, `${spent} left of a claim`);
      const taken = outcomes.filter((o) => o.status === 'fulfilled').length + left[0]! + left[1]!;
      if (store.name === 'memory') assert.equal(taken, 340 + 640, 'the second instance counts its own');
      else assert.equal(taken, budget - 300, 'the whole budget, never more');
      if (store.name !== 'memory') {
        // Past the budget, a refused request is counted alone, as every request was before.
        const before = claims.length;
        await refused(first!, 'grt_d');
        assert.deepEqual(claims.slice(before), [1]);
      }
      const before = claims.length;
      clock.advance({ minutes: 1 });
      await first!.take('grt_d');
      assert.deepEqual(claims.slice(before), [1], 'a new window starts with a claim of one');
    });
  });
}

describe('grant budget: a claim that fails', () => {
  it('fails the requests that waited for it, and the next request claims anew', async () => {
    const clock = new TestClock('2026-03-29T01:20:00Z');
    const local = memoryCounter();
    let failing = true;
    const claims: number[] = [];
    const flaky: RequestCounter = async (grantId, start, requests) => {
      claims.push(requests);
      if (failing) throw new Error('store gone');
      return local(grantId, start, requests);
    };
    const budget = createGrantBudget(flaky, clock, 640);
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => budget.take('grt_f')));
    assert.deepEqual(
      outcomes.map((o) => o.status),
      Array(5).fill('rejected'),
    );
    assert.deepEqual(claims, [1], 'one claim under way, the others waited for it');
    failing = false;
    await budget.take('grt_f');
    await budget.take('grt_f');
    assert.deepEqual(claims, [1, 1, 2], 'asked again, from a claim of one');
  });
});

describe('grant budget windows on PostgreSQL', { skip: postgres.skip }, () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await postgres.open();
  });
  after(() => handle.close());

  it('counts concurrent requests exactly, and the sweep removes only the ended windows', async () => {
    const counts = await Promise.all(
      Array.from({ length: 20 }, () => countGrantRequests(handle.db, 'grt_x', 120_000, 1)),
    );
    assert.deepEqual(
      counts.sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    assert.equal(await countGrantRequests(handle.db, 'grt_x', 120_000, 16), 36, 'a claim of 16 adds 16');
    await countGrantRequests(handle.db, 'grt_x', 180_000, 1);
    await deletePastBudgetWindows(handle.db, 180_000 + 59_999);
    const left = await handle.db.selectFrom('grant_budget_windows').select('window_start').execute();
    assert.deepEqual(
      left.map((r) => Number(r.window_start)),
      [180_000],
    );
    await deletePastBudgetWindows(handle.db, 240_000);
    assert.deepEqual(await handle.db.selectFrom('grant_budget_windows').selectAll().execute(), []);
  });

  it('keeps the counts in an unlogged table: a count waits for no flush of the log', async () => {
    const { rows } = await sql<{
      relpersistence: string;
    }>`select relpersistence from pg_class where relname = 'grant_budget_windows'`.execute(handle.db);
    assert.deepEqual(rows, [{ relpersistence: 'u' }]);
  });

  it('counts locally, told once, while PostgreSQL fails', async () => {
    const gone = await postgres.open();
    await gone.close();
    const told: string[] = [];
    const budget = createGrantBudget(
      withFallback((grantId, start, n) => countGrantRequests(gone.db, grantId, start, n), memoryCounter(), {
        failing: () => told.push('failing'),
        recovered: () => told.push('recovered'),
      }),
      new TestClock(),
      1,
    );
    await budget.take('grt_p');
    assert.equal((await refused(budget, 'grt_p')).code, 'rate_limited');
    assert.deepEqual(told, ['failing']);
  });
});

describe('grant budget on Redis: keys and failures', { skip: redisSkip }, () => {
  let proxy: Server;
  let port: number;
  const sockets = new Set<Socket>();
  /** A TCP proxy to Redis that the test can cut and restore. */
  const listen = (onPort = 0) =>
    new Promise<void>((resolve) => {
      proxy = createServer((socket) => {
        const upstream = tcpConnect(Number(new URL(redisUrl).port || 6379), new URL(redisUrl).hostname);
        for (const s of [socket, upstream]) {
          sockets.add(s);
          s.on('error', () => {});
          s.on('close', () => sockets.delete(s));
        }
        socket.pipe(upstream).pipe(socket);
      });
      proxy.listen(onPort, '127.0.0.1', () => {
        port = (proxy.address() as { port: number }).port;
        resolve();
      });
    });
  const cut = async () => {
    await new Promise((resolve) => {
      proxy.close(resolve);
      for (const s of sockets) s.destroy();
    });
  };

  before(() => listen());
  after(async () => {
    await cut();
  });

  it('keeps a key no longer than two windows; counts locally while Redis is away, told once each way', async () => {
    const prefix = `test-${randomBytes(6).toString('hex')}:`;
    const errors: unknown[] = [];
    const client = connectRedis(`redis://127.0.0.1:${port}`, (e) => errors.push(e)).client;
    const direct = connectRedis(redisUrl, () => {}).client;
    await Promise.all([ready(client), ready(direct)]);
    const told: string[] = [];
    const clock = new TestClock('2026-03-29T02:00:00Z');
    const budget = createGrantBudget(
      withFallback(redisCounter(client, prefix), memoryCounter(), {
        failing: () => told.push('failing'),
        recovered: () => told.push('recovered'),
      }),
      clock,
      perMinute,
    );
    try {
      await budget.take('grt_r');
      const key = `${prefix}grant-budget:grt_r:${clock.now().epochMilliseconds}`;
      assert.equal(await direct.get(key), '1');
      const ttl = await direct.pTTL(key);
      assert.ok(ttl > 60_000 && ttl <= 120_000, `expires: ${ttl} ms`);

      await cut();
      // Away: the local count takes over (and holds the budget itself), told once.
      for (let i = 0; i < perMinute; i++) await budget.take('grt_r');
      assert.equal((await refused(budget, 'grt_r')).code, 'rate_limited');
      assert.deepEqual(told, ['failing']);
      assert.equal(errors.length, 1, 'the lost connection told once');

      await listen(port);
      await ready(client);
      // Back: counted in Redis again, where one request was counted before.
      await budget.take('grt_r');
      assert.deepEqual(told, ['failing', 'recovered']);
      assert.equal(await direct.get(key), '2');
      await budget.take('grt_r');
      assert.equal((await refused(budget, 'grt_r')).code, 'rate_limited');
    } finally {
      const keys = await direct.keys(`${prefix}*`);
      if (keys.length > 0) await direct.del(keys);
      client.destroy();
      direct.destroy();
    }
  });
});

describe('the budget the composition root chooses', () => {
  /** A grant's three requests to an app whose budget is two a minute: the third is refused. */
  const budgetOfTwo = async (t: TestApp) => {
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Team', [[userId, 'owner']]);
    const { token, grantId } = await grantToken(t.ctx, {
      userId,
      workspaceId,
      calendars: [],
      resource: 'v1',
    });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await t.app.inject({
        url: '/v1/calendars',
        headers: { authorization: `Bearer ${token}` },
      });
      statuses.push(response.statusCode);
    }
    assert.deepEqual(statuses, [200, 200, 429]);
    return grantId;
  };

  const cases = [
    { name: 'SQLite: in memory', engine: 'sqlite', redis: false },
    { name: 'PostgreSQL: in its table', engine: 'postgres', redis: false },
    { name: 'with REDIS_URL: in Redis', engine: 'postgres', redis: true },
  ] as const;
  for (const c of cases) {
    const skipped =
      (c.engine === 'postgres' ? postgres.skip : undefined) ?? (c.redis ? redisSkip : undefined);
    it(c.name, { skip: skipped }, async () => {
      const database = c.engine === 'postgres' ? await freshPostgres() : undefined;
      const t = await startTestApp({
        ...(database ? { database } : {}),
        env: { GRANT_REQUESTS_PER_MINUTE: '2', ...(c.redis ? { REDIS_URL: redisUrl } : {}) },
      });
      const direct = connectRedis(redisUrl, () => {}).client;
      try {
        const grantId = await budgetOfTwo(t);
        const rows = await t.ctx.db.selectFrom('grant_budget_windows').select('requests').execute();
        assert.deepEqual(
          rows.map((r) => Number(r.requests)),
          c.engine === 'postgres' && !c.redis ? [3] : [],
        );
        if (!redisSkip) {
          await ready(direct);
          const keys = await direct.keys(`calendar-access:grant-budget:${grantId}:*`);
          assert.equal(keys.length, c.redis ? 1 : 0);
          if (keys.length > 0) await direct.del(keys);
        }
      } finally {
        direct.destroy();
        // Closes (and drops) the database too.
        await t.close();
      }
    });
  }
  it('with REDIS_URL where nothing answers: starts, counts in this process, says so once', async () => {
    const logLines: string[] = [];
    const t = await startTestApp({
      logLines,
      env: {
        GRANT_REQUESTS_PER_MINUTE: '2',
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
        LOG_LEVEL: 'info',
      },
    });
    try {
      await budgetOfTwo(t);
      const messages = logLines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      for (const told of ['Redis connection failed', 'shared request budget unavailable']) {
        assert.equal(messages.filter((m) => m.startsWith(told)).length, 1, messages.join('\n'));
      }
    } finally {
      await t.close();
    }
  });
});
