/**
 * The multi-user rows of `npm run bench` on one engine: an organisation of up to 50 people ×
 * 20 calendars × 1,000 events synced by the service's own rounds (bench/organisation.ts), then
 * reads going round N of them (N = 1, 10, 50: the first N), first reads of people not read
 * before (cold), 20 clients at once over different people, availability and meeting times, a
 * sync that finds no change, the database's bytes per event, a CalDAV account's first sync over
 * HTTP (bench/caldavSync.ts) and a process's memory after reading every one of them
 * (bench/heldUsers.ts). Ratios are to a bare route serving the same bytes in the same run.
 */

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { type Kysely, sql } from 'kysely';
import { type Engine, sqlitePathIn } from '../src/store/database.ts';
import type { Database } from '../src/store/schema.ts';
import { freshPostgres } from '../test/helpers/databases.ts';
import { parseExposition, sampleValue } from '../test/helpers/exposition.ts';
import { checkEvents, checkSearch } from './answers.ts';
import { caldavFirstSync, caldavProvider } from './caldavSync.ts';
import type { HeldUsers } from './heldUsers.ts';
import {
  type Answer,
  answer,
  durationSeconds,
  type Figures,
  measure,
  ms,
  percentile,
  progress,
  type Target,
  toolResult,
} from './measure.ts';
import { eventsCall, searchCall, seedOrganisation, toolCall } from './organisation.ts';
import { benchProvider } from './seed.ts';
import { service } from './service.ts';
import { countCopyWrites } from './writeCounter.ts';

/** [what must hold, the value measured, whether it held] */
export type Bar = [string, string, boolean];

export interface MultiUserReport {
  engine: Engine;
  rows: Figures[];
  /** Figures printed beside the table. */
  lines: string[];
  bars: Bar[];
}

/** The people the reads go round: N = 1, 10, 50 unless BENCH_USERS says otherwise ("1,2"). */
export const userCounts = (process.env.BENCH_USERS ?? '1,10,50').split(',').map(Number);
const concurrentClients = 20;

const persons = (count: number) => `${count} ${count === 1 ? 'person' : 'people'}`;
const median = (values: number[]) => percentile(values, 0.5);

/** One request sent once, timed from this thread (fractional ms). */
async function timed(name: string, target: Target, origin: string): Promise<{ ms: number; answer: Answer }> {
  const started = performance.now();
  const got = await answer(name, target, origin);
  return { ms: performance.now() - started, answer: got };
}

/** The database's size per event: SQLite's pages, PostgreSQL's copy tables with their indexes. */
async function bytesPerEvent(db: Kysely<Database>, engine: Engine, events: number): Promise<number> {
  if (engine === 'sqlite') {
    const count = await sql<{ page_count: number }>`pragma page_count`.execute(db);
    const size = await sql<{ page_size: number }>`pragma page_size`.execute(db);
    return (count.rows[0]!.page_count * size.rows[0]!.page_size) / events;
  }
  const total = await sql<{
    bytes: string;
  }>`select sum(pg_total_relation_size(quote_ident(table_name)))::text as bytes
    from information_schema.tables where table_schema = current_schema()
    and (table_name like 'copy\\_%' or table_name = 'calendar_copies')`.execute(db);
  return Number(total.rows[0]!.bytes) / events;
}

export async function multiUserBench(engine: Engine): Promise<MultiUserReport> {
  const label = engine === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const people = Math.max(...userCounts);
  const dir = mkdtempSync(join(tmpdir(), 'bench-users-'));
  const postgres = engine === 'postgres' ? await freshPostgres() : undefined;
  const database = postgres === undefined ? { sqlitePath: sqlitePathIn(dir) } : { databaseUrl: postgres.url };
  const secretKey = randomBytes(32);
  const { ctx, sync, url, close } = await service(
    { google: benchProvider(), caldav: caldavProvider() },
    { ...database, secretKey },
  );
  const baseline = Fastify({ logger: false });
  let closed = false;
  const rows: Figures[] = [];
  const lines: string[] = [];
  const bars: Bar[] = [];
  const bar = (what: string, value: string, held: boolean) => bars.push([`${label}: ${what}`, value, held]);
  try {
    const load = loadavg().map((value) => value.toFixed(2));
    lines.push(`${label}: load average ${load.join(' ')} (1, 5, 15 min) at the start`);
    progress(`${label}: seeding ${people} people`);
    const organisation = await seedOrganisation(ctx, sync, people);
    /** The search cache's lookups so far, from the service's own metrics. */
    const cacheLookups = async () => {
      const samples = parseExposition(await ctx.metrics.exposition());
      const outcome = (name: string) => sampleValue(samples, 'search_cache_lookups_total', { outcome: name });
      return { hit: outcome('hit'), miss: outcome('miss') };
    };
    const { members, events } = organisation;
    const rate = Math.round(organisation.syncedEvents / (organisation.syncMs / 1000));
    lines.push(
      `${label}: ${people} people × 20 calendars × 1,000 events (${events.toLocaleString('en')}); the first ` +
        `${organisation.synced} synced by the rounds in ${(organisation.syncMs / 1000).toFixed(1)} s (${rate} events/s), ` +
        `the others' copies copied from theirs in bulk in ${(organisation.copyMs / 1000).toFixed(1)} s`,
    );

    // The process's very first reads (code compiled, the reader threads' first statements) are
    // printed apart: a person's first read is one after others (the issue's "cold").
    const [firstMember] = members;
    const processFirst = await timed('first search of the process', searchCall(firstMember!), url);
    checkSearch(`${label} first search of the process`, processFirst.answer);
    const processFirstEvents = await timed('first events of the process', eventsCall(firstMember!), url);
    lines.push(
      `${label}: the process's first search ${ms(processFirst.ms)}, first page of events ${ms(processFirstEvents.ms)} (not counted below)`,
    );
    // First reads, each of a person not read before: searches of every other one, event pages of
    // the rest, each answer checked; for as long as a row runs, twice.
    const cold = { search: [] as number[], events: [] as number[] };
    const firstAnswers: Partial<Record<'search' | 'events', Answer>> = {};
    const coldUntil = performance.now() + 2 * durationSeconds * 1000;
    for (const [i, member] of members.entries()) {
      if (i === 0 && members.length > 1) continue;
      const kind = i % 2 === 0 || members.length === 1 ? 'search' : 'events';
      const read = await timed(
        `first ${kind}`,
        kind === 'search' ? searchCall(member) : eventsCall(member),
        url,
      );
      (kind === 'search' ? checkSearch : checkEvents)(`${label} first ${kind} of member ${i}`, read.answer);
      firstAnswers[kind] ??= read.answer;
      cold[kind].push(read.ms);
      if (performance.now() > coldUntil && cold.search.length > 0 && cold.events.length > 0) break;
    }
    // Too few people for both kinds of first read (two: the second reads events): the first person's answer.
    firstAnswers.search ??= (await timed('search', searchCall(members[0]!), url)).answer;
    firstAnswers.events ??= (await timed('events', eventsCall(members[0]!), url)).answer;

    // The bare routes answer the first person's bytes (every person's answers are the same size).
    const serve = (path: string, method: 'GET' | 'POST', { contentType, body }: Answer) =>
      baseline.route({
        method,
        url: path,
        handler: async (_request, reply) => reply.type(contentType).send(body),
      });
    serve('/search', 'POST', firstAnswers.search!);
    serve('/v1/events', 'GET', firstAnswers.events);
    const baselineUrl = await baseline.listen({ host: '127.0.0.1', port: 0 });
    const bareSearch = await measure(
      `${label}: bare Fastify, search bytes`,
      baselineUrl,
      { ...searchCall(members[0]!), path: '/search' },
      { connections: 1, letter: 'F' },
    );
    const bareEvents = await measure(
      `${label}: bare Fastify, /v1/events bytes`,
      baselineUrl,
      eventsCall(members[0]!),
      { connections: 1, letter: 'G' },
    );
    rows.push(bareSearch, bareEvents);

    for (const [kind, base, samples] of [
      ['search_events', bareSearch, cold.search],
      ['GET /v1/events', bareEvents, cold.events],
    ] as const) {
      if (samples.length === 0) continue;
      const p50 = median(samples);
      const p99 = percentile(samples, 0.99);
      lines.push(
        `${label}: ${kind}, first read of each of ${persons(samples.length)}: p50 ${ms(p50)}, p99 ${ms(p99)}`,
      );
      bar(
        `${kind} cold p50 ≤ 10 × bare p50 (${base.letter})`,
        (p50 / base.p50).toFixed(1),
        p50 <= 10 * base.p50,
      );
      bar(`${kind} cold p99 ≤ 50 ms`, ms(p99), p99 <= 50);
    }

    // Reads going round the first N people, one connection: every request another person's.
    const ratios = new Map<string, number[]>();
    for (const count of userCounts) {
      const round = members.slice(0, count);
      for (const [kind, base, call] of [
        ['search_events', bareSearch, searchCall],
        ['GET /v1/events', bareEvents, eventsCall],
      ] as const) {
        const looked = await cacheLookups();
        const row = await measure(`${label}: ${kind}, round of ${count}`, url, round.map(call), {
          connections: 1,
          baseline: base,
          tolerateErrors: true,
        });
        rows.push(row);
        if (kind === 'search_events') {
          const { hit, miss } = await cacheLookups();
          const lookups = hit - looked.hit + (miss - looked.miss);
          lines.push(
            `${label}: search cache during the round of ${count}: ${lookups === 0 ? 0 : Math.round((100 * (hit - looked.hit)) / lookups)} % of ${lookups.toLocaleString('en')} copy lookups hit (SEARCH_CACHE_MB ${ctx.config.searchCacheBytes / 1024 / 1024})`,
          );
        }
        const ratio = row.p50 / base.p50;
        ratios.set(kind, [...(ratios.get(kind) ?? []), ratio]);
        bar(
          `${kind}, round of ${persons(count)}: p50 ≤ 10 × bare (${base.letter})`,
          ratio.toFixed(1),
          ratio <= 10,
        );
        bar(`${kind}, round of ${persons(count)}: p99 ≤ 50 ms`, ms(row.p99), row.p99 <= 50);
        bar(`${kind}, round of ${persons(count)}: no errors`, String(row.failed), row.failed === 0);
      }
    }
    if (userCounts.length > 1)
      for (const [kind, [first, ...rest]] of ratios) {
        const last = rest.at(-1)!;
        bar(
          `${kind}: ratio at ${people} people ≤ 2 × ratio at ${userCounts[0]} (flat)`,
          `${last.toFixed(1)} vs ${first!.toFixed(1)}`,
          Number.isFinite(first!) && Number.isFinite(last) && last <= 2 * first!,
        );
      }

    // Clients at once, each going round from a different person.
    const bareConcurrent = await measure(
      `${label}: bare Fastify, search bytes`,
      baselineUrl,
      { ...searchCall(members[0]!), path: '/search' },
      { connections: concurrentClients, letter: 'H' },
    );
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const concurrent = await measure(
      `${label}: search_events, ${concurrentClients} clients`,
      url,
      members.map(searchCall),
      { connections: concurrentClients, baseline: bareConcurrent, tolerateErrors: true },
    );
    delay.disable();
    rows.push(bareConcurrent, concurrent);
    const throughput = concurrent.requestsPerSecond / bareConcurrent.requestsPerSecond;
    const delayMax = delay.max / 1e6;
    lines.push(
      `${label}: event-loop delay during ${concurrentClients} clients: max ${ms(delayMax)}, p99 ${ms(delay.percentile(99) / 1e6)}`,
    );
    bar(
      `${concurrentClients} clients over ${Math.min(people, concurrentClients)} people: ≥ 0.05 of bare (H)`,
      throughput.toPrecision(3),
      throughput >= 0.05,
    );
    bar(`${concurrentClients} clients: event-loop delay max ≤ 100 ms`, ms(delayMax), delayMax <= 100);
    bar(`${concurrentClients} clients: no errors`, String(concurrent.failed), concurrent.failed === 0);

    // Busy time and free slots over 20 calendars × 744 h, going round everyone.
    for (const [name, args] of [
      ['get_availability', { timeZone: 'Europe/Berlin' }],
      ['find_meeting_times', { timeZone: 'Europe/Berlin', durationMinutes: 30 }],
    ] as const) {
      const first = toolResult(await answer(name, toolCall(members[0]!, name, args), url));
      if (first?.isError === true || first?.structuredContent?.ok !== true)
        throw new Error(`${label} ${name}: ${JSON.stringify(first).slice(0, 500)}`);
      const row = await measure(
        `${label}: ${name}, round of ${people}`,
        url,
        members.map((member) => toolCall(member, name, args)),
        { connections: 1, tolerateErrors: true },
      );
      rows.push(row);
      bar(
        `${name}, 20 calendars × 744 h, round of ${persons(people)}: p50 ≤ 50 ms`,
        ms(row.p50),
        row.p50 <= 50 && row.failed === 0,
      );
    }

    // A sync that finds no change: nothing rewritten, and the next read as fast as those before.
    const someone = members[0]!;
    const reads: number[] = [];
    for (let i = 0; i < 5; i++) reads.push((await timed('read before', eventsCall(someone), url)).ms);
    const versions = async () =>
      (
        await ctx.db
          .selectFrom('calendar_copies')
          .select(['calendar_id', 'version'])
          .where('calendar_id', 'in', someone.calendarIds)
          .execute()
      ).map((copy) => `${copy.calendar_id}:${copy.version}`);
    const versionsBefore = new Set(await versions());
    const writes = await countCopyWrites(ctx.db, engine);
    // Three rounds of a sync of every calendar, then a read: one read alone is at the mercy of noise.
    const afterReads: number[] = [];
    let rewrittenRows: number;
    try {
      for (let round = 0; round < 3; round++) {
        for (const calendarId of someone.calendarIds) {
          const outcome = await sync.syncNow(calendarId);
          if (outcome !== 'synced') throw new Error(`${label}: the sync with no change: ${outcome}`);
        }
        afterReads.push((await timed('read after', eventsCall(someone), url)).ms);
      }
      rewrittenRows = await writes.count();
    } finally {
      await writes.remove();
    }
    const rewrittenViews = (await versions()).filter((version) => !versionsBefore.has(version)).length;
    const before = median(reads);
    const after = median(afterReads);
    lines.push(
      `${label}: GET /v1/events of one person: ${ms(before)} (median of 5), after a sync with no change ${ms(after)} (median of 3 rounds)`,
    );
    bar(
      'three syncs of 20 calendars with no change: copies whose version moved = 0',
      String(rewrittenViews),
      rewrittenViews === 0,
    );
    bar(
      'three syncs of 20 calendars with no change: rows written = 0',
      String(rewrittenRows),
      rewrittenRows === 0,
    );
    bar(
      'the read after each (median) ≤ 2 × the reads before (+ 5 ms)',
      `${ms(after)} vs ${ms(before)}`,
      after <= Math.max(2 * before, before + 5),
    );

    const perEvent = await bytesPerEvent(postgres?.db ?? ctx.db, engine, events);
    bar(
      `database bytes per event (${engine === 'sqlite' ? 'whole file' : 'copy tables'}) ≤ 1,000`,
      perEvent.toFixed(0),
      perEvent <= 1000,
    );

    // A CalDAV account's first sync over HTTP, into the same database.
    progress(`${label}: CalDAV first sync`);
    const caldav = await caldavFirstSync(ctx, sync, engine === 'postgres');
    const caldavRate = caldav.events / (caldav.ms / 1000);
    const perEventUs = (cpuMs: number) => `${Math.round((cpuMs * 1000) / caldav.events)} µs`;
    const spent = [
      ...[...(caldav.cpu ?? [])].map(([kind, cpuMs]) => `${kind} ${perEventUs(cpuMs)}`),
      ...(caldav.postgresMs === undefined ? [] : [`the PostgreSQL server ${perEventUs(caldav.postgresMs)}`]),
    ];
    lines.push(
      `${label}: CalDAV first sync over HTTP of ${caldav.events} events: ${(caldav.ms / 1000).toFixed(1)} s` +
        (spent.length === 0 ? '' : `; CPU an event: ${spent.join(', ')}`),
    );
    bar(`CalDAV first sync over HTTP: ≥ 5,000 events/s`, caldavRate.toFixed(0), caldavRate >= 5000);
    await close();
    closed = true;

    // Memory of a process that read every one of them once, with V8's defaults (not npm start's flag).
    const heldFile = join(dir, 'held.json');
    const held: HeldUsers = {
      ...database,
      secretKey: secretKey.toString('hex'),
      members,
      readForMs: 6 * durationSeconds * 1000,
    };
    writeFileSync(heldFile, JSON.stringify(held));
    progress(`${label}: memory after reading ${people} people`);
    const child = spawnSync(
      process.execPath,
      [
        ...process.execArgv.filter((flag) => flag !== '--memory-saver-mode'),
        '--expose-gc',
        fileURLToPath(new URL('./heldUsers.ts', import.meta.url)),
        heldFile,
      ],
      { encoding: 'utf8' },
    );
    if (child.status !== 0) throw new Error(`${label}: holding ${people} people failed: ${child.stderr}`);
    const [rss, read] = child.stdout.trim().split('\n').at(-1)!.split(' ').map(Number);
    const rssMb = rss! / 1024 / 1024;
    bar(
      `RSS after reading ${people} people (${events.toLocaleString('en')} events): ≤ 300 MB`,
      `${rssMb.toFixed(0)} MB${read === people ? '' : `, only ${read} read within ${held.readForMs / 1000} s`}`,
      rssMb <= 300 && read === people,
    );
    return { engine, rows, lines, bars };
  } finally {
    if (!closed) await close();
    await baseline.close();
    await postgres?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
