/**
 * Runs some work while `/healthz` is asked every 100 ms and the process's RSS is sampled: a
 * hostile calendar being ground through must leave the service answering and its memory bounded.
 */
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';

export interface HealthSeen {
  slowestMs: number;
  peakRss: number;
}

export async function watchHealth(app: FastifyInstance, work: () => Promise<unknown>): Promise<HealthSeen> {
  const seen: HealthSeen = { slowestMs: 0, peakRss: process.memoryUsage().rss };
  let running = true;
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      const health = await app.inject({ url: '/healthz' });
      assert.equal(health.statusCode, 200);
      seen.slowestMs = Math.max(seen.slowestMs, performance.now() - started);
      seen.peakRss = Math.max(seen.peakRss, process.memoryUsage().rss);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await probe;
  }
  return seen;
}

/** Health answered within a second throughout, and RSS stayed under 1 GB. */
export function assertStayedHealthy({ slowestMs, peakRss }: HealthSeen): void {
  assert.ok(slowestMs < 1000, `/healthz took ${Math.round(slowestMs)} ms`);
  assert.ok(peakRss < 1024 ** 3, `RSS peaked at ${Math.round(peakRss / 1024 ** 2)} MiB`);
}
