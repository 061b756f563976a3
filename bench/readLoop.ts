/**
 * One read asked again and again in this process, for profiling and for A/B runs of a change
 * (`node bench/readLoop.ts`): no HTTP and no load generator beside it, so its figures move with
 * the service's own work. The bench's organisation (bench/organisation.ts) of USERS people (10),
 * then READ (`search`, `events`, or a read-only tool's name) going round them ROUNDS times (30),
 * CLIENTS at once (1); PG=1 on a fresh PostgreSQL database, else an SQLite file; COLD=1 reads
 * each person once, none read before (the bench's first reads). Prints p50, throughput, CPU per
 * read (every thread, and the request thread alone), event-loop delay and garbage collection;
 * PROFILE=file writes the request thread's CPU profile (chrome://inspect, or any .cpuprofile
 * reader). Figures of runs made at different moments are not comparable: interleave A and B.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { sqlitePathIn } from '../src/store/database.ts';
import { freshPostgres } from '../test/helpers/databases.ts';
import type { Target } from './measure.ts';
import { eventsCall, type Member, searchCall, seedOrganisation, toolCall } from './organisation.ts';
import { benchProvider } from './seed.ts';
import { service } from './service.ts';

const env = process.env;
const users = Number(env.USERS ?? 10);
const rounds = Number(env.ROUNDS ?? 30);
const clients = Number(env.CLIENTS ?? 1);
const read = env.READ ?? 'search';
const cold = env.COLD === '1';

const postgres = env.PG === '1' ? await freshPostgres() : undefined;
const dir = mkdtempSync(join(tmpdir(), 'read-loop-'));
const database = postgres === undefined ? { sqlitePath: sqlitePathIn(dir) } : { databaseUrl: postgres.url };
const { app, ctx, sync, close } = await service(
  { google: benchProvider() },
  { ...database, secretKey: randomBytes(32) },
);

const callOf = (member: Member): Target =>
  read === 'search'
    ? searchCall(member)
    : read === 'events'
      ? eventsCall(member)
      : toolCall(member, read, { timeZone: 'Europe/Berlin' });

async function send(target: Target): Promise<void> {
  const response = await app.inject({
    method: target.method ?? 'GET',
    url: target.path,
    ...(target.headers === undefined ? {} : { headers: target.headers }),
    ...(target.body === undefined ? {} : { payload: target.body }),
  });
  if (response.statusCode !== 200)
    throw new Error(`${read}: ${response.statusCode} ${response.body.slice(0, 300)}`);
}

try {
  const { members } = await seedOrganisation(ctx, sync, users);
  const targets = members.map(callOf);
  // Code compiled and (unless cold) every person read before the loop.
  for (const target of cold ? targets.slice(0, 1) : [...targets, ...targets]) await send(target);
  const ahead = cold ? targets.slice(1) : targets;

  const gcMs: number[] = [];
  const collections = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs.push(entry.duration);
  });
  collections.observe({ entryTypes: ['gc'] });
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let session: Session | undefined;
  if (env.PROFILE !== undefined) {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  }

  const times: number[] = [];
  const cpu = process.cpuUsage();
  const threadCpu = process.threadCpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let round = 0; round < (cold ? 1 : rounds); round++)
        for (let i = 0; i < ahead.length; i++) {
          const sent = performance.now();
          await send(ahead[(i + client) % ahead.length]!);
          times.push(performance.now() - sent);
        }
    }),
  );
  const elapsed = performance.now() - started;
  const spent = process.cpuUsage(cpu);
  const threadSpent = process.threadCpuUsage(threadCpu);
  delay.disable();
  collections.disconnect();
  if (session !== undefined) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(env.PROFILE!, JSON.stringify(profile));
  }

  times.sort((a, b) => a - b);
  const perRead = (micros: number) => `${(micros / 1000 / times.length).toFixed(2)} ms`;
  console.log(
    [
      `${read}, ${postgres === undefined ? 'SQLite' : 'PostgreSQL'}, ${cold ? 'first reads of' : `${rounds} rounds of`} ${users} people, ${clients} at once`,
      `p50 ${times[times.length >> 1]!.toFixed(2)} ms, p90 ${times[Math.floor(times.length * 0.9)]!.toFixed(2)} ms, ${Math.round((times.length / elapsed) * 1000)} reads/s`,
      `CPU per read: ${perRead(spent.user + spent.system)} (every thread), ${perRead(threadSpent.user + threadSpent.system)} (the request thread)`,
      `event-loop delay max ${(delay.max / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms; ${gcMs.length} collections, ${Math.round(gcMs.reduce((a, b) => a + b, 0))} ms, longest ${Math.max(0, ...gcMs).toFixed(1)} ms`,
    ].join('\n'),
  );
} finally {
  await close();
  await postgres?.close();
  rmSync(dir, { recursive: true, force: true });
}
