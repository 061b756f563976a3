/**
 * Turns of the event loop for long work done in synchronous steps (a search's lists, a
 * transaction's statements on `node:sqlite`): a function to call after each step. Once `everyMs`
 * have passed since the last turn it answers a promise to await — a macrotask, so timers and
 * I/O run — else undefined: an await at every step costs a turn of the microtask queue each and
 * lets nothing else in.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

export function loopTurns(everyMs: number): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < everyMs) return undefined;
    return nextTurn().then(() => {
      since = performance.now();
    });
  };
}
