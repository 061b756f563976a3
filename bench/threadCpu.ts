/**
 * CPU time by kind of thread, from Linux's per-thread counters (`/proc/self/task`): the request
 * thread, worker threads (SQLite's readers, the expansion pool), V8's helpers (the collector's
 * marking and sweeping, compilation) and the rest (libuv's pool, the inspector). A read's CPU
 * "every thread" says how much; this says whose. Elsewhere than Linux: undefined.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export const threadKinds = ['request thread', 'worker threads', "V8's helpers", 'other'] as const;
export type ThreadKind = (typeof threadKinds)[number];

const kindOf = (name: string): ThreadKind =>
  name === 'node-MainThread'
    ? 'request thread'
    : name === 'WorkerThread'
      ? 'worker threads'
      : name === 'node-V8Worker'
        ? "V8's helpers"
        : 'other';

/** Clock ticks a second, as the counters count (100 on most Linux systems). */
const ticksPerSecond = (() => {
  const asked = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(asked.stdout?.trim());
  return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
})();

/** The CPU (ms) a `/proc/…/stat` line counts: after the name (which may hold spaces) in parentheses, utime and stime are the 12th and 13th fields. */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** Each live thread's CPU so far (ms), by thread id, with its kind; undefined where there are no such counters. */
export function threadCpu(): Map<string, { kind: ThreadKind; ms: number }> | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  const threads = new Map<string, { kind: ThreadKind; ms: number }>();
  for (const task of tasks) {
    try {
      const name = readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim();
      threads.set(task, {
        kind: kindOf(name),
        ms: statCpuMs(readFileSync(`/proc/self/task/${task}/stat`, 'utf8')),
      });
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return threads;
}

/**
 * CPU (ms) the machine's PostgreSQL server processes have spent so far (every backend and helper:
 * on a machine of one deployment, the engine's part of a read or a sync); undefined elsewhere
 * than Linux. A process that ended between two readings is lost.
 */
export function postgresCpu(): number | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  let ms = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The name as the kernel keeps it: "postgres" for the server and each backend.
      if (stat.startsWith(`${pid} (postgres)`)) ms += statCpuMs(stat);
    } catch {
      // A process that ended between the listing and the read.
    }
  }
  return ms;
}

/** CPU (ms) by kind spent between two readings (threads started since count whole; those ended since are lost). */
export function cpuSince(
  before: ReturnType<typeof threadCpu>,
  after: ReturnType<typeof threadCpu>,
): Map<ThreadKind, number> | undefined {
  if (before === undefined || after === undefined) return undefined;
  const spent = new Map<ThreadKind, number>(threadKinds.map((kind) => [kind, 0]));
  for (const [task, { kind, ms }] of after)
    spent.set(kind, (spent.get(kind) ?? 0) + ms - (before.get(task)?.ms ?? 0));
  return spent;
}
