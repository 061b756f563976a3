/**
 * A small pool of worker threads that parse and expand CalDAV and ICS calendars (and read
 * CalDAV's WebDAV answers) off the request thread, so one hostile or huge calendar never delays
 * anyone else's request. Each job runs
 * within a budget (domain/budget.ts) and a hard wall-clock deadline past which its worker is
 * terminated and replaced; each worker's heap is capped; the queue is bounded and a full one
 * answers `provider_unavailable` at once.
 */
import { Worker } from 'node:worker_threads';
import { type BudgetLimits, calendarLimits } from '../domain/budget.ts';
import type { ExpandOptions } from '../domain/ical/expand.ts';
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import type { TimeWindow } from '../domain/window.ts';
import { AppError } from '../errors.ts';
import type { ExpandAnswer } from './expandWithin.ts';
import type {
  IsoWindow,
  JobAnswer,
  PoolJob,
  ReportAnswer,
  ReportRequest,
  SyncCollectionAnswer,
} from './expansionJobs.ts';

export interface ExpansionPoolOptions {
  /** Worker threads (default 2). */
  workers?: number;
  limits?: BudgetLimits;
  /** Wall-clock milliseconds a job may take before its worker is terminated (default 3 × the budget's time). */
  hardTimeoutMs?: number;
  /** Jobs waiting for a worker before new ones are refused (default 32 per worker). */
  maxQueued?: number;
  /** Heap of one worker, in MB (default 256). */
  maxMemoryMb?: number;
}

type JobInput = PoolJob extends infer J ? (J extends PoolJob ? Omit<J, 'limits'> : never) : never;

interface Pending {
  /** Whose calendar this is (the account key): one owner's backlog never starves the others. */
  owner: string;
  job: PoolJob;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  worker: Worker;
  /** Set once the worker has loaded its code: a job's deadline runs from then, not from the spawn. */
  ready: boolean;
  running?: { id: number; pending: Pending; timer?: NodeJS.Timeout };
}

const isoWindow = (window: TimeWindow): IsoWindow => ({
  start: window.start.toString(),
  end: window.end.toString(),
});

/** A job's XML bytes, moved to the worker rather than copied on the request thread when they own their buffer. */
const movedBytes = (job: PoolJob): ArrayBuffer[] =>
  'xml' in job && job.xml.byteOffset === 0 && job.xml.byteLength === job.xml.buffer.byteLength
    ? [job.xml.buffer as ArrayBuffer]
    : [];

const unavailable = (message: string) => new AppError('provider_unavailable', message);

export interface ExpansionPool {
  expand(
    owner: string,
    objects: { ics: string; options?: Pick<ExpandOptions, 'version'> }[],
    options: Omit<ExpandOptions, 'budget'>,
  ): Promise<ExpandAnswer>;
  find(
    owner: string,
    ics: string,
    uid: string,
    recurrenceId: string | undefined,
    options: Omit<ExpandOptions, 'budget' | 'window'>,
  ): Promise<ProviderOccurrence | undefined>;
  describe(owner: string, ics: string): Promise<{ name?: string; timeZone?: string }>;
  /** A sync-collection answer read: its members and token. `xml` is moved to the worker, not copied. */
  syncCollection(owner: string, xml: Uint8Array): Promise<SyncCollectionAnswer>;
  /** A REPORT answer of calendar objects (megabytes of XML) read and expanded in one job; `xml` is moved. */
  report(owner: string, xml: Uint8Array, request: ReportRequest): Promise<ReportAnswer>;
  close(): Promise<void>;
}

export function createExpansionPool(options: ExpansionPoolOptions = {}): ExpansionPool {
  const size = options.workers ?? 2;
  const limits = options.limits ?? calendarLimits;
  const hardTimeoutMs = options.hardTimeoutMs ?? limits.timeMs * 3;
  const maxQueued = options.maxQueued ?? size * 32;
  const maxMemoryMb = options.maxMemoryMb ?? 256;
  const slots: Slot[] = [];
  const queue: Pending[] = [];
  let nextId = 0;
  /** When each owner's latest job was dispatched, counted in dispatches. */
  const lastServed = new Map<string, number>();
  let dispatched = 0;

  function startWorker(): Slot {
    const worker = new Worker(new URL('./expansionWorker.ts', import.meta.url), {
      // A 16 MB young generation: V8's default let each worker keep ~45 MB more after a first
      // sync (resident 485 → 394 MB after 20 × 1,000 CalDAV events), at no cost in speed.
      resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb, maxYoungGenerationSizeMb: 16 },
    });
    // Idle workers never keep the process alive.
    worker.unref();
    const slot: Slot = { worker, ready: false };
    worker.on('message', (answer: JobAnswer | 'ready') => {
      if (answer === 'ready') {
        slot.ready = true;
        armDeadline(slot);
        return;
      }
      const running = slot.running;
      if (running === undefined || running.id !== answer.id) return;
      clearTimeout(running.timer);
      slot.running = undefined;
      if ('value' in answer) running.pending.resolve(answer.value);
      else if (answer.error.invalid)
        running.pending.reject(new AppError('invalid_request', answer.error.message));
      else running.pending.reject(new Error(answer.error.message));
      dispatch();
    });
    const lost = (why: string) => {
      const running = slot.running;
      slot.running = undefined;
      retire(slot);
      if (running !== undefined) {
        clearTimeout(running.timer);
        running.pending.reject(unavailable(why));
      }
      dispatch();
    };
    worker.on('error', (error: Error & { code?: string }) =>
      lost(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? 'The calendar needs more memory than one read may take; it was left out.'
          : 'The calendar could not be read.',
      ),
    );
    worker.on('exit', () => lost('The calendar could not be read.'));
    slots.push(slot);
    return slot;
  }

  function retire(slot: Slot): void {
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    slot.worker.removeAllListeners('exit');
    void slot.worker.terminate();
  }

  /** Starts the running job's deadline, once its worker is ready to work on it. */
  function armDeadline(slot: Slot): void {
    const running = slot.running;
    if (running === undefined || running.timer !== undefined || !slot.ready) return;
    running.timer = setTimeout(() => {
      // The job overran its deadline: its worker is stopped and a new one takes its place.
      slot.running = undefined;
      retire(slot);
      running.pending.reject(unavailable('The calendar takes too long to read; it was left out.'));
      dispatch();
    }, hardTimeoutMs);
  }

  /**
   * The queued job to run next: of the owner with the fewest jobs running, then the one served
   * longest ago, then the oldest — so one account's backlog of hostile calendars takes turns
   * with everyone else's reads instead of holding every worker.
   */
  function fairestJob(): number {
    const running = new Map<string, number>();
    for (const slot of slots) {
      const owner = slot.running?.pending.owner;
      if (owner !== undefined) running.set(owner, (running.get(owner) ?? 0) + 1);
    }
    const rank = ({ owner }: Pending) => [running.get(owner) ?? 0, lastServed.get(owner) ?? -1] as const;
    let best = 0;
    for (let i = 1; i < queue.length; i++) {
      const [load, served] = rank(queue[i]!);
      const [bestLoad, bestServed] = rank(queue[best]!);
      if (load < bestLoad || (load === bestLoad && served < bestServed)) best = i;
    }
    return best;
  }

  function dispatch(): void {
    while (queue.length > 0) {
      const slot =
        slots.find((s) => s.running === undefined) ?? (slots.length < size ? startWorker() : undefined);
      if (slot === undefined) return;
      const pending = queue.splice(fairestJob(), 1)[0]!;
      lastServed.set(pending.owner, dispatched++);
      const id = nextId++;
      slot.running = { id, pending };
      armDeadline(slot);
      slot.worker.ref();
      slot.worker.postMessage({ id, job: pending.job }, movedBytes(pending.job));
    }
    for (const slot of slots) if (slot.running === undefined) slot.worker.unref();
  }

  function submit<T>(owner: string, input: JobInput): Promise<T> {
    if (queue.length >= maxQueued) {
      return Promise.reject(unavailable('Too many calendars are being read at once; try again in a moment.'));
    }
    return new Promise<T>((resolve, reject) => {
      queue.push({
        owner,
        job: { ...input, limits } as PoolJob,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      dispatch();
    });
  }

  return {
    expand: (owner, objects, { window, ...expandOptions }) =>
      submit(owner, {
        kind: 'expand',
        objects,
        options: expandOptions,
        window: isoWindow(window),
      }),
    async find(owner, ics, uid, recurrenceId, findOptions) {
      return (
        (await submit<ProviderOccurrence | null>(owner, {
          kind: 'find',
          ics,
          uid,
          recurrenceId,
          options: findOptions,
        })) ?? undefined
      );
    },
    describe: (owner, ics) => submit(owner, { kind: 'describe', ics }),
    syncCollection: (owner, xml) => submit(owner, { kind: 'syncCollection', xml }),
    report: (owner, xml, { window, ...request }) =>
      submit(owner, { kind: 'report', xml, request: { ...request, window: isoWindow(window) } }),
    async close() {
      for (const pending of queue.splice(0)) pending.reject(unavailable('The service is stopping.'));
      await Promise.all([...slots].map((slot) => slot.worker.terminate()));
    },
  };
}
