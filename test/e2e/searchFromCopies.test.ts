/**
 * search_events reads the copies as list_events does: calendars on a real Radicale behind a
 * counting proxy, synced by the service's rounds, then searched and listed through /mcp. Once the
 * copies are synced and fresh neither makes a CalDAV request; once they are older than
 * SYNC_MAX_AGE_SECONDS either makes one sync-collection REPORT per calendar and nothing else (no
 * calendar-query: nothing is read live; no multiget: nothing changed), and that sync, having
 * found nothing, leaves the copies' version as it was. Before the first sync completes, reads
 * are live (one calendar-query per calendar) and start that sync. Searches repeated over fresh
 * copies find their words kept in memory (the search cache), and a change at Radicale reaches
 * the next search all the same: the sync moves the copy's version, and nothing kept for the
 * one before is read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { copiesOf } from '../../src/store/calendarCopies.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { parseExposition, sampleValue } from '../helpers/exposition.ts';
import { FaultProxy } from '../helpers/faultProxy.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { putIcs, type RadicaleServer, radicaleMissing, startRadicale } from '../helpers/radicale.ts';
import { connectRadicale, fillRadicale, vcalendar } from '../helpers/radicaleCalendars.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const skip = radicaleMissing();

/** `count` one-hour events over April 2026, every fifth a "Review". */
const events = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, n) => [
    `UID:${prefix}-${n}`,
    `DTSTART:202604${String((n % 28) + 1).padStart(2, '0')}T${String(8 + (n % 10)).padStart(2, '0')}0000Z`,
    'DURATION:PT1H',
    `SUMMARY:${n % 5 === 0 ? 'Review' : 'Meeting'} ${n}`,
  ]);

const april = { start: '2026-04-01T00:00:00Z', end: '2026-05-01T00:00:00Z' };

describe('search_events and list_events from synced CalDAV copies', { skip }, () => {
  let radicale: RadicaleServer;
  let proxy: FaultProxy;
  let t: TestApp;
  let token: string;
  let calendarIds: string[];
  /** REPORTs through the proxy by kind. */
  const reports = { query: 0, multiget: 0, sync: 0 };

  before(async () => {
    radicale = await startRadicale();
    await fillRadicale(radicale, [
      { slug: 'a', displayName: 'A', timeZone: 'Europe/Berlin', contents: [vcalendar(...events('a', 30))] },
      { slug: 'b', displayName: 'B', timeZone: 'Europe/Berlin', contents: [vcalendar(...events('b', 30))] },
    ]);
    proxy = await FaultProxy.start(radicale.url);
    // Passed through at once, each counted by what it asks.
    for (const [kind, body] of [
      ['query', /calendar-query/],
      ['multiget', /calendar-multiget/],
      ['sync', /sync-collection/],
    ] as const)
      proxy.inject({
        method: 'REPORT',
        body,
        delayMs: 0,
        phase: 'before',
        times: Number.POSITIVE_INFINITY,
        onHeld: () => {
          reports[kind] += 1;
        },
      });
    t = await startTestApp({ listen: true, adapters: { sleep: async () => {} } });
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Home', [[userId, 'owner']]);
    calendarIds = [
      ...(await connectRadicale(t.ctx, { userId, workspaceId }, { ...radicale, url: proxy.url })).values(),
    ];
    ({ token } = await grantToken(t.ctx, {
      userId,
      workspaceId,
      calendars: calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'full' })),
      resource: 'mcp',
    }));
    // What a round does first: a copy for each granted calendar, not synced yet.
    await reconcileCopies(t.ctx.db, t.clock.now().epochMilliseconds);
  });

  after(async () => {
    await t?.close();
    await proxy?.close();
    await radicale?.stop();
  });

  /** One tool call (2025-era stateless request); its structured result and the REPORTs it caused. */
  async function call(name: 'search_events' | 'list_events', args: Record<string, unknown>) {
    const before = { ...reports };
    const response = await fetch(`${t.ctx.config.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    });
    assert.equal(response.status, 200);
    // Answered as JSON or as one server-sent event.
    const text = await response.text();
    const json = text.startsWith('{') ? text : text.slice(text.indexOf('data: ') + 6).split('\n')[0]!;
    const answer = JSON.parse(json) as { result: { isError?: boolean; structuredContent: unknown } };
    assert.notEqual(answer.result.isError, true, JSON.stringify(answer.result));
    const caused = {
      query: reports.query - before.query,
      multiget: reports.multiget - before.multiget,
      sync: reports.sync - before.sync,
    };
    return { result: answer.result.structuredContent as { termine: unknown[]; matched?: number }, caused };
  }
  const search = () => call('search_events', { calendarIds, query: 'review', limit: 50, ...april });
  const list = () => call('list_events', { calendarIds, limit: 250, ...april });
  const versions = async () => [...(await copiesOf(t.ctx.db, calendarIds)).values()].map((c) => c.version);

  it('reads live before the first sync, one calendar-query per calendar, and starts that sync', async () => {
    const { result, caused } = await search();
    assert.equal(result.matched, 12);
    // The first syncs it started may have asked already: only the live listings are this read's.
    assert.equal(caused.query, 2);
    await t.sync.idle();
    const copies = await copiesOf(t.ctx.db, calendarIds);
    assert.deepEqual(
      [...copies.values()].map((copy) => copy.syncedAt !== null),
      [true, true],
      'synced without a round',
    );
    assert.equal(reports.sync, 2);
  });

  it('asks Radicale nothing once the copies are synced and fresh, searching as listing', async () => {
    for (const read of [search, list, search]) {
      const { result, caused } = await read();
      assert.deepEqual(caused, { query: 0, multiget: 0, sync: 0 }, read.name);
      assert.equal(result.termine.length, read === list ? 60 : 12);
    }
  });

  it('syncs stale copies once each, reading nothing live, and a sync that found nothing keeps their version', async () => {
    const synced = await versions();
    t.clock.advance({ seconds: t.ctx.config.sync.maxAgeSeconds + 1 });
    const stale = await search();
    assert.deepEqual(stale.caused, { query: 0, multiget: 0, sync: 2 });
    assert.equal(stale.result.matched, 12);
    assert.deepEqual(await versions(), synced);
    assert.deepEqual((await list()).caused, { query: 0, multiget: 0, sync: 0 }, 'fresh again');
  });

  it("finds a change at Radicale in the next search after its sync, though the copies' words were kept", async () => {
    const lookups = async (outcome: 'hit' | 'miss') =>
      sampleValue(parseExposition(await t.ctx.metrics.exposition()), 'search_cache_lookups_total', {
        outcome,
      });
    const hits = await lookups('hit');
    assert.equal((await search()).result.matched, 12);
    assert.equal(await lookups('hit'), hits + 2, 'both copies answered from the words kept');
    // "Meeting 1" becomes a review, and "Review 0" a meeting; the next search after the copies'
    // sync finds the one and not the other.
    const auth = { username: radicale.username, password: radicale.password };
    const a = new URL(`${radicale.username}/a/`, radicale.url).href;
    await putIcs(
      a,
      auth,
      vcalendar(
        ['UID:a-0', 'DTSTART:20260401T080000Z', 'DURATION:PT1H', 'SUMMARY:Meeting 0'],
        ['UID:a-1', 'DTSTART:20260402T090000Z', 'DURATION:PT1H', 'SUMMARY:Review of the quarter'],
      ),
    );
    t.clock.advance({ seconds: t.ctx.config.sync.maxAgeSeconds + 1 });
    const before = await versions();
    const changed = await search();
    assert.equal(changed.caused.multiget, 1);
    assert.notDeepEqual(await versions(), before);
    // Calendar b keeps its own "Review 0".
    const found = (changed.result.termine as { title: string }[]).map((event) => event.title);
    assert.equal(found.filter((title) => title === 'Review of the quarter').length, 1, found.join(', '));
    assert.equal(found.filter((title) => title === 'Review 0').length, 1, found.join(', '));
    assert.equal(changed.result.matched, 12);
  });
});
