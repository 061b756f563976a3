/**
 * At most `limit` pieces of work at once; the rest wait in line, in the order they asked. Reads
 * of the copies take a slot: each answer from the database resumes its read on the one thread,
 * and twenty reads in flight resume back to back, one loop turn holding them all (every other
 * request, `/healthz` too, waits for it). A few at once keep the database and the thread as busy,
 * with turns a few reads long.
 */
export interface WorkSlots {
  /**
   * Runs `work` once a slot is free, holding it until the work settles. A signal aborted while
   * it waits takes it out of line: its promise rejects with the signal's reason, nothing run.
   */
  run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Pieces of work waiting for a slot now. */
  readonly waiting: number;
}

export function workSlots(limit: number): WorkSlots {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`work slots: ${limit} is not a positive integer`);
  let running = 0;
  const line = new Set<() => void>();

  const release = () => {
    const [next] = line;
    if (next === undefined) running -= 1;
    else {
      // The slot passes to the first in line: `running` stays.
      line.delete(next);
      next();
    }
  };

  const slot = (signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      signal?.throwIfAborted();
      if (running < limit) {
        running += 1;
        resolve();
        return;
      }
      const leave = () => {
        line.delete(admit);
        reject(signal!.reason);
      };
      const admit = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      line.add(admit);
      signal?.addEventListener('abort', leave, { once: true });
    });

  return {
    async run(work, signal) {
      await slot(signal);
      try {
        return await work();
      } finally {
        release();
      }
    },
    get waiting() {
      return line.size;
    },
  };
}
