/**
 * Hostile ICS feeds read through the real application (loopback feed server, real adapters,
 * search_events at /mcp) while the test watches the process: /healthz, polled every 100 ms,
 * answers within a second throughout, and RSS stays under 1 GB. Each calendar is answered,
 * whole or marked incomplete, never a stall or a crash.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import {
  hostileZoneCalendar,
  impossibleRules,
  manyRdates,
  ordinaryEvents,
  secondlyEvents,
} from '../domain/hostileCalendars.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { assertStayedHealthy, watchHealth } from '../helpers/healthWatch.ts';
import { callToolRaw } from '../helpers/mcpSession.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const feeds: Record<string, () => string> = {
  'zone-1600': () => hostileZoneCalendar('1600'),
  'zone-2026': () => hostileZoneCalendar('2026'),
  'secondly-20': () => secondlyEvents(20),
  'impossible-50': () => impossibleRules(50),
  'ordinary-30000': () => ordinaryEvents(30_000),
  'rdates-100000': () => manyRdates(100_000),
};

describe('hostile ICS feeds through search_events', () => {
  let feedServer: Server;
  let feedBase: string;
  let testApp: TestApp;
  let baseUrl: string;
  let owner: { userId: string; workspaceId: string };

  before(async () => {
    const bodies = new Map(Object.entries(feeds).map(([name, make]) => [`/${name}.ics`, make()]));
    feedServer = createServer((request, response) => {
      const body = bodies.get(request.url ?? '');
      response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/calendar' });
      response.end(body);
    });
    await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
    feedBase = `http://127.0.0.1:${(feedServer.address() as { port: number }).port}`;
    testApp = await startTestApp({
      env: { ICS_ALLOW_PRIVATE_NETWORKS: 'true' },
      adapters: {},
      listen: true,
    });
    baseUrl = testApp.ctx.config.baseUrl;
    const userId = await seedUser(testApp.ctx.db, 'ida@example.org');
    owner = { userId, workspaceId: await seedWorkspace(testApp.ctx.db, 'Feeds', [[userId, 'owner']]) };
  });

  after(async () => {
    await testApp?.close();
    feedServer?.close();
  });

  for (const name of Object.keys(feeds)) {
    it(`${name}: health answers within 1 s, RSS stays under 1 GB, the calendar is answered`, async () => {
      const seen = await watchHealth(testApp.app, async () => {
        const { calendars } = await addConnection(
          testApp.ctx,
          owner,
          { kind: 'ics', url: `${feedBase}/${name}.ics` },
          name,
        );
        const calendarId = calendars[0]!.id;
        const { token } = await grantToken(testApp.ctx, {
          ...owner,
          calendars: [{ calendarId, detailLevel: 'full' }],
        });
        const result = await callToolRaw(`${baseUrl}/mcp`, token, 'search_events', {
          calendarIds: [calendarId],
          query: 'plain',
          start: '2026-03-01T00:00:00Z',
          end: '2026-03-31T00:00:00Z',
        });
        assert.notEqual(result.isError, true, result.content[0]?.text ?? 'a tool error');
        const text = result.content.map((part) => part.text).join('\n');
        const reported = /\(some of its events could not be read\)/;
        if (name.startsWith('zone-')) {
          assert.match(text, /"title":"Plain"/, 'the event beside the hostile zone is found');
          assert.match(text, reported, 'the event in the hostile zone is reported');
        }
        if (name === 'secondly-20' || name === 'impossible-50') assert.match(text, reported);
      });
      assertStayedHealthy(seen);
    });
  }
});
