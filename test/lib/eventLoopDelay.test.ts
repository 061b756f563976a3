/**
 * The event loop's stalls, measured: `eventloop_delay_seconds` shows one in the scrape after it
 * (and not in the next), and the stall watch tells one stall once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { watchEventLoopStalls } from '../../src/lib/eventLoopStalls.ts';
import { createMetrics } from '../../src/lib/metrics.ts';
import { parseExposition, sampleValue } from '../helpers/exposition.ts';

/** Holds the thread, as a long synchronous piece of work does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose
  }
}

/** One turn of the loop for timers: the delay monitor samples on one. */
const turn = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

describe('event loop delay', () => {
  it('shows a stall in eventloop_delay_seconds, since the previous scrape only', async () => {
    const metrics = createMetrics();
    const delay = async (stat: string) =>
      sampleValue(parseExposition(await metrics.exposition()), 'eventloop_delay_seconds', { stat });
    await delay('max');
    // A scrape starts the monitor afresh: its first sample after is taken one turn later.
    await turn();
    stall(300);
    await turn();
    const max = await delay('max');
    assert.ok(max >= 0.25, `max ${max}`);
    assert.ok((await delay('p99')) <= max);
    await turn();
    assert.ok((await delay('max')) < 0.25, 'the next scrape starts afresh');
  });

  it('tells a stall past the threshold once', async () => {
    const stalls: number[] = [];
    let told: () => void = () => {};
    const telling = new Promise<void>((resolve) => (told = resolve));
    const stop = watchEventLoopStalls(
      (ms) => {
        stalls.push(ms);
        told();
      },
      { thresholdMs: 200, everyMs: 20 },
    );
    try {
      await turn();
      stall(400);
      await telling;
      // Checks after the stall find the loop free again.
      await turn(200);
      assert.equal(stalls.length, 1, `told ${stalls.length} times`);
      assert.ok(stalls[0]! >= 380, `${stalls[0]} ms`);
    } finally {
      stop();
    }
  });
});
