/**
 * `npm run bench`: throughput and latency of the service's routes against a bare Fastify route
 * answering the same bytes, measured in the same run so the ratio means something on any machine.
 * The read paths (`search_events` over MCP, `GET /v1/events`) and the write path (`update_event`:
 * fresh provider check, versioned write, audit row) run on a seeded account of 20 calendars ×
 * 1,000 events (bench/seed.ts); each is compared with its own baseline. Then an organisation of
 * up to 50 such people on SQLite and on PostgreSQL (bench/multiUser.ts): reads going round them,
 * cold reads, concurrent clients, a sync with no change, memory and bytes per event, and a CalDAV
 * account's first sync over HTTP; and find_meeting_times with 10 attendees and a room
 * (bench/meetingRooms.ts, which runs alone too). BENCH_SECONDS, BENCH_USERS and
 * BENCH_SYNCED_USERS shorten it.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import Fastify from 'fastify';
import { defaultPolicy } from '../src/policy/workspacePolicy.ts';
import type { Engine } from '../src/store/database.ts';
import { savePolicy } from '../src/store/workspaces.ts';
import { postgresSkip } from '../test/helpers/databases.ts';
import { grantToken } from '../test/helpers/grantToken.ts';
import { checkEvents, checkSearch, totalMatches } from './answers.ts';
import { serveMcpFloor } from './mcpFloor.ts';
import {
  type Answer,
  answer as answerAt,
  durationSeconds,
  mcpHeaders,
  measure,
  modernCall,
  type Target,
  toolResult,
} from './measure.ts';
import { meetingRoomsBench } from './meetingRooms.ts';
import { type MultiUserReport, multiUserBench } from './multiUser.ts';
import {
  benchProvider,
  calendarCount,
  eventsPerCalendar,
  heldCalendars,
  searchWord,
  seedAccount,
  window,
} from './seed.ts';
import { service } from './service.ts';
import { bigCalendarEvents, syncFigures } from './syncFigures.ts';

// One read of 20,000 events keeps the service's single thread busy for over a second: with 10
// connections every answer would wait ~10 reads (past autocannon's timeout) and a 5 s run would
// complete none. One connection measures the same throughput of a CPU-bound thread.
const readConnections = Number(process.env.BENCH_READ_CONNECTIONS ?? 1);

/** Live listings the provider answered: a read served by fresh copies makes none. */
let providerReads = 0;
const bench = benchProvider();
const countedProvider = {
  ...bench,
  listEvents: (...args: Parameters<typeof bench.listEvents>) => {
    providerReads += 1;
    return bench.listEvents(...args);
  },
};

const { ctx, sync, url: serviceUrl, close: closeService } = await service({ google: countedProvider });
const owner = await seedAccount(ctx);
const calendars = owner.calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'full' as const }));
const mcpToken = (await grantToken(ctx, { ...owner, calendars, resource: 'mcp' })).token;
const v1Token = (await grantToken(ctx, { ...owner, calendars, resource: 'v1' })).token;

// The first sync of every calendar, as the rounds of one instance make it.
const fullSyncStarted = performance.now();
while ((await sync.runDue()) > 0);
const fullSyncMs = performance.now() - fullSyncStarted;
providerReads = 0;

const searchArguments = { calendarIds: owner.calendarIds, query: searchWord, ...window };
const mcpModern = modernCall(mcpToken, 'search_events', searchArguments);
// Protocol 2025-11-25: the stateless fallback serves a bare tools/call without a session.
const mcpLegacy: Target = {
  path: '/mcp',
  method: 'POST',
  headers: { ...mcpHeaders(mcpToken), 'mcp-protocol-version': '2025-11-25' },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'search_events', arguments: searchArguments },
  }),
};
const restEvents: Target = {
  path: `/v1/events?${new URLSearchParams({ calendar_id: owner.calendarIds.join(','), ...window })}`,
  headers: { authorization: `Bearer ${v1Token}` },
};

/** Sends the request once; its answer is what the baseline will serve. */
const answer = (name: string, target: Target, origin = serviceUrl) => answerAt(name, target, origin);

const answers = {
  ready: await answer('readyz', { path: '/readyz' }),
  mcpModern: await answer('search_events 2026-07-28', mcpModern),
  mcpLegacy: await answer('search_events 2025-11-25', mcpLegacy),
  restEvents: await answer('GET /v1/events', restEvents),
};
checkSearch('search_events 2026-07-28', answers.mcpModern);
checkSearch('search_events 2025-11-25', answers.mcpLegacy);
checkEvents('GET /v1/events', answers.restEvents);

// The write row renames one event again and again: each request reads the calendar's rights and
// the event afresh, writes with the version it read, and records the attempt.
await savePolicy(
  ctx.db,
  owner.workspaceId,
  { ...defaultPolicy, allowedScopes: ['calendar:read', 'calendar:write', 'calendar:rsvp', 'calendar:rooms'] },
  0,
);
const writeToken = (
  await grantToken(ctx, { ...owner, calendars, resource: 'mcp', scopes: ['calendar:read', 'calendar:write'] })
).token;
const renamed = 'Budget review (moved to the small room)';

// What a model is given before its first call: the whole tools/list of a token with every scope,
// in tokens at about four bytes each.
const everyScope = (
  await grantToken(ctx, {
    ...owner,
    calendars,
    resource: 'mcp',
    scopes: ['calendar:read', 'calendar:write', 'calendar:rsvp', 'calendar:rooms'],
  })
).token;
const listing = toolResult(
  await answer('tools/list', {
    path: '/mcp',
    method: 'POST',
    headers: { ...mcpHeaders(everyScope), 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  }),
);
const listedTools: { name: string; description?: string; inputSchema: unknown }[] = listing?.tools ?? [];
const toolsListTokens = Math.round(JSON.stringify(listing).length / 4);
// What hosts put before a model: each tool's name, description and input schema (output schemas
// stay with the client, which checks answers against them).
const modelToolTokens = Math.round(
  JSON.stringify(
    listedTools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  ).length / 4,
);
const first = toolResult(answers.mcpModern).structuredContent.termine[0];
const eventId: string = first.eventId;
const rename = (seenTitle: string) =>
  modernCall(writeToken, 'update_event', { eventId, seen: { title: seenTitle }, title: renamed });
// Renamed once from the title read; then renamed again from the title it now has.
await answer('update_event', rename(first.title));
const updateEvent = rename(renamed);
const updateAnswer = await answer('update_event', updateEvent);
const updated = toolResult(updateAnswer)?.structuredContent;
if (updated?.outcome !== 'applied' || updated.event?.title !== renamed)
  throw new Error(`update_event: not applied: ${updateAnswer.body.slice(0, 500)}`);

// The baselines serve the very bytes the service answered, with no work behind them; each takes
// the same request as the row it is compared with (so a POST body is read and parsed there too).
const baseline = Fastify({ logger: false });
const serve = (method: 'GET' | 'POST', url: string, { contentType, body }: Answer) =>
  baseline.route({ method, url, handler: async (_request, reply) => reply.type(contentType).send(body) });
serve('GET', '/readyz', answers.ready);
serve('POST', '/mcp-modern', answers.mcpModern);
serve('POST', '/mcp-legacy', answers.mcpLegacy);
serve('GET', '/v1/events', answers.restEvents);
serve('POST', '/mcp-update', updateAnswer);
await serveMcpFloor(baseline, '/mcp-floor', answers.mcpModern);
const baselineUrl = await baseline.listen({ host: '127.0.0.1', port: 0 });
// The floor answers what the service answered (as many bytes, the same JSON: the SDK puts its
// _meta first), or its row measures something else.
const floorAnswer = await answerAt('MCP floor', { ...mcpModern, path: '/mcp-floor' }, baselineUrl);
if (
  floorAnswer.body.length !== answers.mcpModern.body.length ||
  !isDeepStrictEqual(JSON.parse(floorAnswer.body), JSON.parse(answers.mcpModern.body))
)
  throw new Error(`the MCP floor answers other bytes: ${floorAnswer.body.slice(0, 300)}`);

const read = { connections: readConnections };
// The write above refreshed its calendar's copy; from here the copies are fresh.
providerReads = 0;
const baselineA = await measure(
  'bare Fastify, /readyz bytes',
  baselineUrl,
  { path: '/readyz' },
  { letter: 'A' },
);
const rows = [baselineA];
for (const [name, path] of [
  ['GET /readyz (database ping)', '/readyz'],
  ['GET /healthz', '/healthz'],
  ['GET /login (page, CSRF cookie)', '/login'],
] as const)
  rows.push(await measure(name, serviceUrl, { path }, { baseline: baselineA }));
for (const [letter, name, target, baselinePath] of [
  ['B', 'MCP search_events, 2026-07-28', mcpModern, '/mcp-modern'],
  ['C', 'MCP search_events, 2025-11-25', mcpLegacy, '/mcp-legacy'],
  ['D', 'GET /v1/events (20 calendars)', restEvents, restEvents.path],
] as const) {
  const base = await measure(
    'bare Fastify, same bytes',
    baselineUrl,
    { ...target, path: baselinePath },
    { ...read, letter },
  );
  rows.push(base, await measure(name, serviceUrl, target, { ...read, baseline: base }));
}
const copyRows = rows.slice(-6).filter((r) => r.baseline !== undefined);
// The same search answered by the SDK alone (bench/mcpFloor.ts), against baseline B.
const [baseB, modernRow] = rows.slice(-6);
const floorRow = await measure(
  'MCP SDK alone, same answer (the floor)',
  baselineUrl,
  { ...mcpModern, path: '/mcp-floor' },
  { ...read, baseline: baseB! },
);
rows.push(floorRow);
const providerReadsByCopyRows = providerReads;

// The same search through the live path: a service keeping no copy, its provider answering after 50 ms.
const slow = await service({
  google: {
    ...bench,
    listEvents: async (...args: Parameters<typeof bench.listEvents>) => {
      await sleep(50);
      return bench.listEvents(...args);
    },
  },
});
const slowOwner = await seedAccount(slow.ctx);
const slowCalendars = slowOwner.calendarIds.map((calendarId) => ({
  calendarId,
  detailLevel: 'full' as const,
}));
const slowToken = (await grantToken(slow.ctx, { ...slowOwner, calendars: slowCalendars, resource: 'mcp' }))
  .token;
const liveSearch = modernCall(slowToken, 'search_events', {
  ...searchArguments,
  calendarIds: slowOwner.calendarIds,
});
checkSearch(
  'live search_events',
  await answer('live search_events', { ...liveSearch, path: `${slow.url}/mcp` }, ''),
);
const liveRow = await measure('MCP search_events, live, provider 50 ms', slow.url, liveSearch, read);
rows.push(liveRow);
await slow.close();
// One connection: concurrent renames of one event would race for its version and measure conflicts.
const write = { connections: 1 };
const baseE = await measure(
  'bare Fastify, same bytes',
  baselineUrl,
  { ...updateEvent, path: '/mcp-update' },
  { ...write, letter: 'E' },
);
const updateRow = await measure('MCP update_event (1 event)', serviceUrl, updateEvent, {
  ...write,
  baseline: baseE,
});
rows.push(baseE, updateRow);
// A tool error is an HTTP 200 too: the record of attempts says whether every rename was made.
const attempts = await ctx.db
  .selectFrom('event_writes')
  .select(({ fn }) => ['outcome', fn.countAll<number>().as('n')])
  .groupBy('outcome')
  .execute();
if (attempts.length !== 1 || attempts[0]?.outcome !== 'applied')
  throw new Error(`update_event: not every rename was made: ${JSON.stringify(attempts)}`);
await closeService();
await baseline.close();

// A 10,000-event Google calendar synced in full, then after one change.
const figures = await syncFigures(service);
// Memory with 100,000 events held, in a process of its own.
const held = spawnSync(
  process.execPath,
  // The bench's own V8 flags (npm start's: none), so the memory is the service's as it runs.
  [...process.execArgv, '--expose-gc', fileURLToPath(new URL('./heldEvents.ts', import.meta.url))],
  {
    encoding: 'utf8',
  },
);
if (held.status !== 0) throw new Error(`holding events failed: ${held.stderr}`);
const heldRssMb = Number(held.stdout.trim().split('\n').at(-1)) / 1024 / 1024;

// An organisation's reads, on each engine.
const engines: Engine[] = ['sqlite'];
if ((await postgresSkip('the multi-user rows on PostgreSQL')) === undefined) engines.push('postgres');
const organisations: MultiUserReport[] = [];
for (const engine of engines) organisations.push(await multiUserBench(engine));
for (const organisation of organisations) rows.push(...organisation.rows);
// A meeting with 10 attendees and a room, outsiders asked of a provider answering in 50 ms.
const meetingRooms = await meetingRoomsBench();
rows.push(...meetingRooms.rows);

const size = (a: Answer) => `${(Buffer.byteLength(a.body) / 1024).toFixed(1)} KiB`;
const out = (line: string) => process.stdout.write(`${line}\n`);
const [load1, load5, load15] = loadavg().map((load) => load.toFixed(2));
out(
  `machine: ${availableParallelism()} cores, load average ${load1} ${load5} ${load15} (1, 5, 15 min) at the end`,
);
out(
  `${durationSeconds} s per row; ${calendarCount} calendars × ${eventsPerCalendar} events; search "${searchWord}" ` +
    `matches ${totalMatches}, answers ${size(answers.mcpModern)}; /v1/events page of 250, ${size(answers.restEvents)}`,
);
out(
  `${'route'.padEnd(52)}${'conns'.padStart(6)}${'done'.padStart(8)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}  ratio to baseline`,
);
for (const r of rows) {
  const base = r.baseline;
  const ratio =
    base === undefined
      ? ''
      : `${(r.requestsPerSecond / base.requestsPerSecond).toPrecision(3)} (${base.letter})`;
  out(
    `${r.name.padEnd(52)}${String(r.connections).padStart(6)}${String(r.completed).padStart(8)}${r.requestsPerSecond.toFixed(r.requestsPerSecond < 10 ? 2 : 0).padStart(10)}${r.p50.toFixed(2).padStart(9)}${r.p99.toFixed(2).padStart(9)}  ${ratio}`,
  );
}

// The bars the synced copies must hold; a broken one fails the run.
const copySearch = copyRows[0]!;
const bars: Array<[string, string, boolean]> = [
  ...copyRows.map((r): [string, string, boolean] => {
    const ratio = r.requestsPerSecond / r.baseline!.requestsPerSecond;
    return [`${r.name} from the copies: ≥ 0.05 of its baseline`, ratio.toPrecision(3), ratio >= 0.05];
  }),
  [
    'p50 of the live search (provider 50 ms) ÷ p50 from the copies: ≥ 20',
    (liveRow.p50 / copySearch.p50).toFixed(1),
    liveRow.p50 >= 20 * copySearch.p50,
  ],
  [
    'provider listings during the reads from fresh copies: 0',
    String(providerReadsByCopyRows),
    providerReadsByCopyRows === 0,
  ],
  [
    `provider requests of an incremental sync of ${bigCalendarEvents} events after one change: ≤ 3`,
    String(figures.incrementalRequests),
    figures.incrementalRequests <= 3,
  ],
  [
    'its time ÷ the full sync’s: < 0.01',
    (figures.incrementalMs / figures.fullMs).toFixed(4),
    figures.incrementalMs < figures.fullMs / 100,
  ],
  [
    `tools/list (${listedTools.length} tools) as a model is given it (names, descriptions, input schemas), ≈ bytes ÷ 4: < 9,000 tokens (whole listing, output schemas too: ${toolsListTokens})`,
    String(modelToolTokens),
    listedTools.length > 0 && modelToolTokens < 9_000,
  ],
  [
    `RSS holding ${heldCalendars * eventsPerCalendar} events: ≤ 300 MB`,
    `${heldRssMb.toFixed(0)} MB`,
    heldRssMb <= 300,
  ],
  [
    'MCP update_event: ≥ 0.05 of its baseline (E)',
    (updateRow.requestsPerSecond / baseE.requestsPerSecond).toPrecision(3),
    updateRow.requestsPerSecond >= 0.05 * baseE.requestsPerSecond,
  ],
  ...organisations.flatMap((organisation) => organisation.bars),
  ...meetingRooms.bars,
];
out('');
out(
  `full sync of ${calendarCount} × ${eventsPerCalendar} events into the copies: ${(fullSyncMs / 1000).toFixed(2)} s`,
);
out(
  `Google calendar of ${bigCalendarEvents} events: full sync ${(figures.fullMs / 1000).toFixed(2)} s in ${figures.fullRequests} requests; ` +
    `after one change ${figures.incrementalMs.toFixed(1)} ms in ${figures.incrementalRequests}`,
);
// Per call, with one connection: the mean time of a request is 1 s ÷ its rate.
const meanMs = (r: { requestsPerSecond: number }) => 1000 / r.requestsPerSecond;
out(
  `MCP search_events, 2026-07-28: ${(modernRow!.requestsPerSecond / floorRow.requestsPerSecond).toPrecision(3)} of the SDK alone; ` +
    `the service's own work ${(meanMs(modernRow!) - meanMs(floorRow)).toFixed(2)} ms a call, the protocol's ${(meanMs(floorRow) - meanMs(baseB!)).toFixed(2)} ms`,
);
for (const line of organisations.flatMap((organisation) => organisation.lines)) out(line);
for (const line of meetingRooms.lines) out(line);
for (const [bar, value, held] of bars) out(`${held ? 'ok    ' : 'BROKEN'} ${bar}: ${value}`);
if (bars.some(([, , held]) => !held)) process.exitCode = 1;
