/**
 * The bench's measurement (bench/measure.ts): latencies are each answer's own time to a fraction
 * of a millisecond, so a bare route's ~0.1 ms is not read as 0 and ratios to it mean something.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';

process.env.BENCH_SECONDS = '1';
const { measure, percentile } = await import('../../bench/measure.ts');

describe('the bench measures', () => {
  const app = Fastify({ logger: false });
  let origin: string;
  before(async () => {
    app.get('/bare', async () => 'ok');
    app.get('/slow', async () => {
      await sleep(3);
      return 'ok';
    });
    app.get('/missing', async (_request, reply) => reply.code(404).send('no'));
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => app.close());

  it("each answer's latency, fractions of a millisecond included", async () => {
    const bare = await measure('bare', origin, { path: '/bare' }, { connections: 1 });
    assert.ok(bare.completed > 100, `${bare.completed} answers`);
    assert.ok(bare.p50 > 0 && bare.p50 < 1, `bare p50 ${bare.p50} ms`);
    assert.ok(bare.p99 >= bare.p50);
    const slow = await measure('slow', origin, { path: '/slow' }, { connections: 1 });
    assert.ok(slow.p50 >= 3 && slow.p50 < 20, `slow p50 ${slow.p50} ms`);
    assert.ok(slow.p50 / bare.p50 > 3);
  });

  it('the answers of a list of requests gone round, and none of a row that answered none well', async () => {
    const round = await measure('round', origin, [{ path: '/bare' }, { path: '/slow' }], { connections: 2 });
    assert.ok(round.p99 >= 3, `p99 ${round.p99} ms`);
    const failing = await measure(
      'missing',
      origin,
      { path: '/missing' },
      { connections: 1, tolerateErrors: true },
    );
    assert.ok(failing.failed > 0);
    assert.equal(failing.p50, Number.POSITIVE_INFINITY);
  });

  it('percentiles by nearest rank', () => {
    assert.equal(percentile([5, 1, 3, 2, 4], 0.5), 3);
    assert.equal(percentile([5, 1, 3, 2, 4], 0.99), 5);
    assert.equal(percentile([7], 0.5), 7);
    assert.ok(Number.isNaN(percentile([], 0.5)));
  });
});
