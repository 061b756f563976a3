/**
 * Freshness as a client sees it: a fresh copy answers without asking the provider; a copy older
 * than SYNC_MAX_AGE_SECONDS is synced first; when that sync fails the answer comes from the copy
 * and says so (MCP: a text part naming the calendar and its copy's age; REST: meta.stale), never
 * a silent gap; a write shows in the next read at once (read-your-writes).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import type { CalendarProvider } from '../../src/providers/port.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { callToolRaw, structured } from '../helpers/mcpSession.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  seedMemoryAccount,
} from '../helpers/memoryCalendars.ts';
import { getEvents } from '../helpers/restClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';
import { seenOf } from '../helpers/seen.ts';

const window = { start: '2026-03-16T00:00:00Z', end: '2026-03-23T00:00:00Z' };

describe('freshness of the synced copies', () => {
  let t: TestApp;
  let calendarId: string;
  let mcpToken: string;
  let v1Token: string;
  const calendar: MemoryCalendar = {
    name: 'Work',
    timeZone: 'Europe/Berlin',
    occurrences: [
      occurrence({
        providerEventId: 'e1',
        start: '2026-03-18T10:00:00',
        timeZone: 'Europe/Berlin',
        title: 'Budget',
      }),
    ],
  };
  const base = memoryProvider('google', new Map([['work', calendar]]));
  let listings = 0;
  const provider: CalendarProvider<'google'> = {
    ...base,
    listEvents: (...args) => {
      listings += 1;
      return base.listEvents(...args);
    },
  };
  const search = async (query: string) =>
    callToolRaw(`${t.ctx.config.baseUrl}/mcp`, mcpToken, 'search_events', {
      calendarIds: [calendarId],
      query,
      ...window,
    });
  const titles = (result: Awaited<ReturnType<typeof search>>) =>
    (structured(result).termine as { title: string }[]).map((e) => e.title);

  before(async () => {
    t = await startTestApp({ listen: true, providers: { google: provider } });
    const userId = await seedUser(t.ctx.db, 'fresh@example.test');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Fresh', [[userId, 'owner']]);
    await savePolicy(
      t.ctx.db,
      workspaceId,
      { ...defaultPolicy, allowedScopes: ['calendar:read', 'calendar:write'] },
      0,
    );
    [calendarId] = (await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider)) as [string];
    const calendars = [{ calendarId, detailLevel: 'full' as const }];
    mcpToken = (
      await grantToken(t.ctx, { userId, workspaceId, calendars, scopes: ['calendar:read', 'calendar:write'] })
    ).token;
    v1Token = (await grantToken(t.ctx, { userId, workspaceId, calendars, resource: 'v1' })).token;
  });
  after(() => t.close());

  it('reads a calendar never synced live, and a fresh copy without asking the provider', async () => {
    assert.deepEqual(titles(await search('budget')), ['Budget']);
    assert.equal(listings, 1, 'no copy yet: read live');
    await t.sync.runDue();
    listings = 0;
    const result = await search('budget');
    assert.deepEqual(titles(result), ['Budget']);
    assert.equal(result.content.length, 1, 'nothing to say');
    assert.equal(listings, 0, 'a fresh copy answers alone');
  });

  it('syncs a copy older than the freshness allows before answering', async () => {
    calendar.occurrences.push(
      occurrence({
        providerEventId: 'e2',
        start: '2026-03-19T10:00:00',
        timeZone: 'Europe/Berlin',
        title: 'Budget 2',
      }),
    );
    assert.deepEqual(titles(await search('budget')), ['Budget'], 'within the max age the copy answers');
    t.clock.advance({ seconds: 61 });
    listings = 0;
    const result = await search('budget');
    assert.deepEqual(titles(result), ['Budget', 'Budget 2']);
    assert.equal(listings, 1, 'one sync, then the copy answered');
    assert.equal(result.content.length, 1);
  });

  it('answers from the copy when that sync fails, and says so on both surfaces', async () => {
    const syncedAt = t.clock.now();
    calendar.failure = new AppError('provider_unavailable', 'down', { details: { reason: 'server_error' } });
    t.clock.advance({ minutes: 10 });
    const result = await search('budget');
    assert.deepEqual(titles(result), ['Budget', 'Budget 2'], 'the copy still answers');
    assert.equal(result.content.length, 2);
    const note = result.content[1]!.text;
    assert.match(note, new RegExp(calendarId));
    assert.match(note, /10 minutes ago: the calendar service did not answer as expected/);
    assert.match(note, new RegExp(syncedAt.toString().replace(/[.]/g, '\\.')));

    const rest = await getEvents(t.app, v1Token, [
      ['calendar_id', calendarId],
      ['start', window.start],
      ['end', window.end],
    ]);
    assert.equal(rest.status, 200);
    const meta = (rest.body as { meta: Record<string, unknown> }).meta;
    assert.deepEqual(meta.stale, [
      { calendarId, syncedAt: syncedAt.toString(), reason: 'provider_unavailable' },
    ]);
    assert.deepEqual(meta.excluded, []);
    delete calendar.failure;
  });

  it('answers from the same copy with the calendar’s rights as they are now', async () => {
    const before = structured(await search('budget')).termine as { canEdit: boolean }[];
    assert.ok(before.every((e) => e.canEdit));
    await t.ctx.db.updateTable('calendars').set({ access: 'reader' }).where('id', '=', calendarId).execute();
    listings = 0;
    const after = structured(await search('budget')).termine as { canEdit: boolean }[];
    assert.ok(after.length > 0 && after.every((e) => !e.canEdit), 'a read-only calendar now');
    assert.equal(listings, 0, 'still from the copy');
    await t.ctx.db.updateTable('calendars').set({ access: 'owner' }).where('id', '=', calendarId).execute();
  });

  it('shows a write in the very next read (the copy is refreshed before the tool answers)', async () => {
    t.clock.advance({ minutes: 1 });
    await search('budget'); // synced again: fresh
    const [event] = structured(await search('budget 2')).termine as { eventId: string }[];
    const update = await callToolRaw(`${t.ctx.config.baseUrl}/mcp`, mcpToken, 'update_event', {
      eventId: event!.eventId,
      seen: seenOf(event!),
      title: 'Budget 2 (moved)',
    });
    assert.equal(structured(update).outcome, 'applied');
    listings = 0;
    assert.deepEqual(titles(await search('moved')), ['Budget 2 (moved)']);
    assert.equal(listings, 0, 'answered from the refreshed copy');
  });
});
