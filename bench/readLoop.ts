/**
 * One read asked again and again in this process, for profiling and for A/B runs of a change
 * (`node bench/readLoop.ts`): no HTTP and no load generator beside it, so its figures move with
 * the service's own work. The bench's organisation (bench/organisation.ts) of USERS people (10),
 * then READ (`search`, `events`, or a read-only tool's name) going round them ROUNDS times (30),
 * CLIENTS at once (1); PG=1 on a fresh PostgreSQL database, else an SQLite file; COLD=1 reads
 * each person once, none read before (the bench's first reads). Every person's first answer is
 * checked as the bench checks it. Prints p50, throughput, CPU per read (every thread, the
 * request thread alone, and on Linux by kind of thread and the PostgreSQL server's:
 * bench/threadCpu.ts), event-loop delay and
 * garbage collection; PROFILE=file writes the request thread's CPU profile (chrome://inspect, or
 * any .cpuprofile reader). The bytes allocated per read vary far less between runs than times
 * do: a change's first measure. Figures of runs made at different moments are not comparable:
 * interleave A and B.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { sqlitePathIn } from '../src/store/database.ts';
import { freshPostgres } from '../test/helpers/databases.ts';
import { checkEvents, checkSearch } from './answers.ts';
import { type Answer, ms, percentile, type Target, toolResult } from './measure.ts';
import { eventsCall, type Member, searchCall, seedOrganisation, toolCall } from './organisation.ts';
import { benchProvider } from './seed.ts';
import { service } from './service.ts';
import { cpuSince, postgresCpu, type ThreadKind, threadCpu } from './threadCpu.ts';

export interface LoopOptions {
  users: number;
  rounds: number;
  clients: number;
  /** `search`, `events`, or a read-only tool's name. */
  read: string;
  /** Each person read once, none before. */
  cold: boolean;
  postgres: boolean;
  /** Where the request thread's CPU profile goes. */
  profile?: string;
}

export interface LoopFigures {
  reads: number;
  p50: number;
  p90: number;
  readsPerSecond: number;
  /** CPU per read, ms: every thread of the process, and the request thread alone. */
  cpuMs: number;
  requestThreadCpuMs: number;
  /** CPU per read by kind of thread, ms (Linux only). */
  threadCpuMs?: Map<ThreadKind, number>;
  /** The PostgreSQL server's CPU per read, ms (PG=1, on Linux). */
  postgresCpuMs?: number;
  /** Bytes the request thread's heap allocated per read: steadier from run to run than its time. */
  allocatedBytes: number;
  delayMaxMs: number;
  delayP99Ms: number;
  collections: number;
  collectionMs: number;
}

const callOf = (read: string, member: Member): Target =>
  read === 'search'
    ? searchCall(member)
    : read === 'events'
      ? eventsCall(member)
      : toolCall(member, read, { timeZone: 'Europe/Berlin' });

/** Fails unless the answer is what the bench would measure: a full search, a full page, a tool's success. */
function check(read: string, answer: Answer): void {
  if (read === 'search') checkSearch(read, answer);
  else if (read === 'events') checkEvents(read, answer);
  else {
    const result = toolResult(answer);
    if (result === undefined || result.isError === true || result.structuredContent?.ok !== true)
      throw new Error(`${read}: not a successful result: ${answer.body.slice(0, 500)}`);
  }
}

export async function readLoop(options: LoopOptions): Promise<LoopFigures> {
  const { users, rounds, clients, read, cold } = options;
  const whole = (value: number, least: number) => Number.isInteger(value) && value >= least;
  // A first read needs a person read after another (the first is the process's own first read).
  if (!whole(users, cold ? 2 : 1) || !whole(rounds, 1) || !whole(clients, 1))
    throw new Error(
      `readLoop: USERS (${cold ? 'at least 2 when COLD' : 'at least 1'}), ROUNDS and CLIENTS are whole numbers`,
    );
  const postgres = options.postgres ? await freshPostgres() : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'read-loop-'));
  const database = postgres === undefined ? { sqlitePath: sqlitePathIn(dir) } : { databaseUrl: postgres.url };
  const { app, ctx, sync, close } = await service(
    { google: benchProvider() },
    { ...database, secretKey: randomBytes(32) },
  );

  const send = async (target: Target): Promise<Answer> => {
    const response = await app.inject({
      method: target.method ?? 'GET',
      url: target.path,
      ...(target.headers === undefined ? {} : { headers: target.headers }),
      ...(target.body === undefined ? {} : { payload: target.body }),
    });
    if (response.statusCode !== 200)
      throw new Error(`${read}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    return { contentType: String(response.headers['content-type']), body: response.body };
  };

  try {
    const { members } = await seedOrganisation(ctx, sync, users);
    const targets = members.map((member) => callOf(read, member));
    // Code compiled and (unless cold) every person read once before the loop, each answer checked.
    for (const target of cold ? targets.slice(0, 1) : targets) check(read, await send(target));
    const ahead = cold ? targets.slice(1) : targets;

    const gcMs: number[] = [];
    const collections = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcMs.push(entry.duration);
    });
    collections.observe({ entryTypes: ['gc'] });
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    let session: Session | undefined;
    if (options.profile !== undefined) {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
    }

    const times: number[] = [];
    // First reads are checked after the loop: checking them in it would be counted with them.
    const firstAnswers: Answer[] = [];
    const threads = threadCpu();
    const engineCpu = postgres === undefined ? undefined : postgresCpu();
    const cpu = process.cpuUsage();
    const requestCpu = process.threadCpuUsage();
    const allocated = getHeapStatistics().total_allocated_bytes;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        for (let round = 0; round < (cold ? 1 : rounds); round++)
          for (let i = 0; i < ahead.length; i++) {
            const sent = performance.now();
            const answer = await send(ahead[(i + client) % ahead.length]!);
            times.push(performance.now() - sent);
            if (cold) firstAnswers.push(answer);
          }
      }),
    );
    const elapsed = performance.now() - started;
    const spent = process.cpuUsage(cpu);
    const threadSpent = process.threadCpuUsage(requestCpu);
    const byThread = cpuSince(threads, threadCpu());
    const engineSpent = engineCpu === undefined ? undefined : postgresCpu()! - engineCpu;
    const allocatedBytes = (getHeapStatistics().total_allocated_bytes - allocated) / times.length;
    delay.disable();
    collections.disconnect();
    if (session !== undefined) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(options.profile!, JSON.stringify(profile));
      session.disconnect();
    }
    for (const answer of firstAnswers) check(read, answer);

    const perRead = (micros: number) => micros / 1000 / times.length;
    return {
      reads: times.length,
      p50: percentile(times, 0.5),
      p90: percentile(times, 0.9),
      readsPerSecond: (times.length / elapsed) * 1000,
      cpuMs: perRead(spent.user + spent.system),
      requestThreadCpuMs: perRead(threadSpent.user + threadSpent.system),
      ...(byThread === undefined
        ? {}
        : { threadCpuMs: new Map([...byThread].map(([kind, ms]) => [kind, ms / times.length])) }),
      ...(engineSpent === undefined ? {} : { postgresCpuMs: engineSpent / times.length }),
      allocatedBytes,
      delayMaxMs: delay.max / 1e6,
      delayP99Ms: delay.percentile(99) / 1e6,
      collections: gcMs.length,
      collectionMs: gcMs.reduce((a, b) => a + b, 0),
    };
  } finally {
    await close();
    await postgres?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const env = process.env;
  const options: LoopOptions = {
    users: Number(env.USERS ?? 10),
    rounds: Number(env.ROUNDS ?? 30),
    clients: Number(env.CLIENTS ?? 1),
    read: env.READ ?? 'search',
    cold: env.COLD === '1',
    postgres: env.PG === '1',
    ...(env.PROFILE === undefined ? {} : { profile: env.PROFILE }),
  };
  const figures = await readLoop(options);
  const { read, users, rounds, clients, cold } = options;
  console.log(
    [
      `${read}, ${options.postgres ? 'PostgreSQL' : 'SQLite'}, ${cold ? 'first reads of' : `${rounds} rounds of`} ${users} people, ${clients} at once`,
      `p50 ${ms(figures.p50)}, p90 ${ms(figures.p90)}, ${Math.round(figures.readsPerSecond)} reads/s`,
      `CPU per read: ${ms(figures.cpuMs)} (every thread), ${ms(figures.requestThreadCpuMs)} (the request thread)`,
      ...(figures.threadCpuMs === undefined
        ? []
        : [
            `CPU per read by thread: ${[...figures.threadCpuMs].map(([kind, spent]) => `${kind} ${ms(spent)}`).join(', ')}`,
          ]),
      ...(figures.postgresCpuMs === undefined
        ? []
        : [`the PostgreSQL server's CPU per read: ${ms(figures.postgresCpuMs)}`]),
      `allocated per read on the request thread: ${Math.round(figures.allocatedBytes / 1024)} KiB`,
      `event-loop delay max ${ms(figures.delayMaxMs)}, p99 ${ms(figures.delayP99Ms)}; ${figures.collections} collections, ${ms(figures.collectionMs)}`,
    ].join('\n'),
  );
}
