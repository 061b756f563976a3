/**
 * A copy answering after its sync failed says why, on both surfaces: REST `meta.stale[].reason`
 * from the closed list of exclusion reasons, MCP a text part in the words the account page uses.
 * A real ICS feed on loopback turns into an HTML page, then grows past the feed limit.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import { exclusionMeanings } from '../../src/calendars/reads/readEvents.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { callToolRaw, structured } from '../helpers/mcpSession.ts';
import { getEvents } from '../helpers/restClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const window = { start: '2026-03-30T00:00:00Z', end: '2026-04-06T00:00:00Z' };
const feed = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//test//stale reasons//EN',
  'BEGIN:VEVENT',
  'UID:review@example.test',
  'DTSTAMP:20260301T000000Z',
  'DTSTART:20260331T090000Z',
  'DTEND:20260331T100000Z',
  'SUMMARY:Quarterly review',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe('why a stale copy is stale', () => {
  let feedServer: Server;
  let serving: 'ics' | 'html' | 'huge' = 'ics';
  let t: TestApp;
  let calendarId: string;
  let mcpToken: string;
  let v1Token: string;

  before(async () => {
    feedServer = createServer((_request, response) => {
      if (serving === 'ics') {
        response.writeHead(200, { 'content-type': 'text/calendar' });
        response.end(feed);
      } else if (serving === 'html') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<!doctype html><html><body>Moved to our new portal</body></html>');
      } else {
        // Past the 5 MiB a feed may have: a valid start, then far too much.
        response.writeHead(200, { 'content-type': 'text/calendar' });
        response.end(
          feed.replace('END:VCALENDAR', `X-PADDING:${'x'.repeat(6 * 1024 * 1024)}\r\nEND:VCALENDAR`),
        );
      }
    });
    await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
    const feedUrl = `http://127.0.0.1:${(feedServer.address() as { port: number }).port}/team.ics`;
    t = await startTestApp({ env: { ICS_ALLOW_PRIVATE_NETWORKS: 'true' }, adapters: {}, listen: true });
    const userId = await seedUser(t.ctx.db, 'ida@example.org');
    const owner = { userId, workspaceId: await seedWorkspace(t.ctx.db, 'Feeds', [[userId, 'owner']]) };
    const { calendars } = await addConnection(t.ctx, owner, { kind: 'ics', url: feedUrl }, 'Team');
    calendarId = calendars[0]!.id;
    const granted = [{ calendarId, detailLevel: 'full' as const }];
    mcpToken = (await grantToken(t.ctx, { ...owner, calendars: granted })).token;
    v1Token = (await grantToken(t.ctx, { ...owner, calendars: granted, resource: 'v1' })).token;
    await t.sync.runDue();
  });

  after(async () => {
    await t?.close();
    feedServer?.close();
  });

  const staleAnswers = async () => {
    const rest = await getEvents(t.app, v1Token, [
      ['calendar_id', calendarId],
      ['start', window.start],
      ['end', window.end],
      ['time_zone', 'UTC'],
    ]);
    assert.equal(rest.status, 200, rest.text);
    const mcp = await callToolRaw(`${t.ctx.config.baseUrl}/mcp`, mcpToken, 'search_events', {
      calendarIds: [calendarId],
      query: 'review',
      timeZone: 'UTC',
      ...window,
    });
    assert.notEqual(mcp.isError, true, mcp.content[0]?.text ?? 'a tool error');
    return { meta: rest.body.meta, mcp };
  };

  for (const [mode, reason] of [
    ['html', 'not_calendar_data'],
    ['huge', 'too_large'],
  ] as const) {
    it(`a feed that ${mode === 'html' ? 'became an HTML page' : 'grew past the limit'}: ${reason}`, async () => {
      serving = mode;
      t.clock.advance({ minutes: 10 });
      const { meta, mcp } = await staleAnswers();
      assert.equal(meta.stale.length, 1);
      assert.equal(meta.stale[0].calendarId, calendarId);
      assert.equal(meta.stale[0].reason, reason);
      assert.deepEqual(meta.excluded, [], 'the copy answered');
      const titles = (structured(mcp).termine as { title: string }[]).map((e) => e.title);
      assert.deepEqual(titles, ['Quarterly review'], 'from the copy');
      const note = mcp.content.map((part) => part.text).find((text) => text.includes('last copy'));
      assert.ok(note, 'the MCP answer says it came from a copy');
      assert.ok(note.includes(calendarId));
      assert.ok(note.includes(exclusionMeanings[reason]), note);
    });
  }
});
