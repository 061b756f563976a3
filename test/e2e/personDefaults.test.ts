/**
 * What a person has one of, across their accounts, through a real MCP client: the default
 * calendar (`primary` on one calendar, not one per account) and, from it, their time zone and
 * "now" (`get_current_time`). Two CalDAV accounts on a real Radicale, each with one calendar —
 * which that server, naming no default, has as its default by being listed first.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { assertMatchesSchema, type ListedTool } from '../helpers/mcpSession.ts';
import { mkcalendar, type RadicaleServer, radicaleMissing, startRadicale } from '../helpers/radicale.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const users = { alice: 'alice-password', bob: 'bob-password' };
const berlinZone = [
  'BEGIN:VCALENDAR',
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'END:VTIMEZONE',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe("a person's default calendar and time zone", { skip: radicaleMissing() }, () => {
  let radicale: RadicaleServer;
  let t: TestApp;
  let owner: { userId: string; workspaceId: string };
  /** Calendar name → id: Home (first account, Europe/Berlin), Work (second account, no zone). */
  const ids = new Map<string, string>();
  const clients: Client[] = [];

  before(async () => {
    radicale = await startRadicale({ users });
    const home = new URL('alice/home/', radicale.url).href;
    await mkcalendar(
      home,
      { username: 'alice', password: users.alice },
      { displayName: 'Home', timeZone: berlinZone },
    );
    await mkcalendar(
      new URL('bob/work/', radicale.url).href,
      { username: 'bob', password: users.bob },
      {
        displayName: 'Work',
      },
    );
    // The clock starts at 2026-03-29T00:30:00Z and ends at 00:32Z: 01:32 in Berlin, before its spring change.
    t = await startTestApp({ listen: true, adapters: { sleep: async () => {} } });
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    owner = { userId, workspaceId: await seedWorkspace(t.ctx.db, 'Home', [[userId, 'owner']]) };
    for (const [username, password] of Object.entries(users)) {
      const { calendars } = await addConnection(
        t.ctx,
        owner,
        { kind: 'caldav', serverUrl: radicale.url, username, password },
        username,
      );
      for (const calendar of calendars) ids.set(calendar.name, calendar.id);
      t.clock.advance({ minutes: 1 }); // the next account is connected later
    }
  });
  after(async () => {
    for (const client of clients) await client.close();
    await t?.close();
    await radicale?.stop();
  });

  /** A real MCP client holding a grant of `names`. */
  const assistant = async (...names: string[]) => {
    const { token } = await grantToken(t.ctx, {
      ...owner,
      calendars: names.map((name) => ({ calendarId: ids.get(name)!, detailLevel: 'full' as const })),
      resource: 'mcp',
    });
    const client = new Client({ name: 'person-defaults', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.ctx.config.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    const tools = (await client.listTools()).tools as unknown as ListedTool[];
    const call = async (name: string) => {
      const result = await client.callTool({ name, arguments: {} });
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      assertMatchesSchema(tools.find((tool) => tool.name === name)?.outputSchema, result.structuredContent);
      return result.structuredContent as Record<string, unknown>;
    };
    return {
      primaries: async () =>
        ((await call('list_calendars')).calendars as Array<{ name: string; primary: boolean }>).map(
          (c) => `${c.name}: ${c.primary}`,
        ),
      now: () => call('get_current_time'),
    };
  };

  it('marks one default calendar for the person: that of the account connected first', async () => {
    const both = await assistant('Home', 'Work');
    assert.deepEqual(await both.primaries(), ['Home: true', 'Work: false']);
    // A grant without the default calendar shows none as primary, not another in its place.
    const workOnly = await assistant('Work');
    assert.deepEqual(await workOnly.primaries(), ['Work: false']);
  });

  it("gives now in the person's zone, from their default calendar", async () => {
    assert.deepEqual(await (await assistant('Home', 'Work')).now(), {
      ok: true,
      now: '2026-03-29T01:32:00+01:00',
      timeZone: 'Europe/Berlin',
      weekday: 'Sunday',
    });
  });

  it('gives now in UTC and no zone when the default calendar is not shared', async () => {
    assert.deepEqual(await (await assistant('Work')).now(), {
      ok: true,
      now: '2026-03-29T00:32:00Z',
      weekday: 'Sunday',
    });
  });
});
