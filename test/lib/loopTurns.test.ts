/**
 * Long synchronous work in steps gives the event loop a turn once per slice of time: no await
 * before (each would cost a turn of the microtask queue), a macrotask when due (timers and I/O
 * run), the slice counted again from there.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loopTurns } from '../../src/lib/loopTurns.ts';

const busyFor = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('turns of the event loop', () => {
  it('answers nothing to await until the slice has passed', () => {
    const turn = loopTurns(60_000);
    for (let step = 0; step < 1_000; step++) assert.equal(turn(), undefined);
  });

  it('then a turn in which what waits for the loop runs, and counts the next slice from its end', async () => {
    const turn = loopTurns(5);
    busyFor(6);
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    const due = turn();
    assert.ok(due instanceof Promise);
    // A microtask would resolve before the immediate queued above; a turn of the loop after it.
    await due;
    assert.equal(ran, true);
    assert.equal(turn(), undefined);
    busyFor(6);
    assert.ok(turn() instanceof Promise);
  });
});
