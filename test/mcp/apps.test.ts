/**
 * MCP Apps (io.modelcontextprotocol/ui) through the real MCP client over HTTP: the views are
 * listed and read as `ui://` resources of the profile's MIME type with a CSP declaring no domain,
 * the four tools name them in `_meta.ui`, a token sees only the views of the tools it may use,
 * and the tool results are what they were (nothing added for the views).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { defaultPolicy, type Scope } from '../../src/policy/workspacePolicy.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClock } from '../helpers/clock.ts';
import { grantToken } from '../helpers/grantToken.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  seedMemoryAccount,
} from '../helpers/memoryCalendars.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const berlin = 'Europe/Berlin';
const agenda = 'ui://calendar/agenda';
const freeTimes = 'ui://calendar/free-times';
const strictCsp = { connectDomains: [], resourceDomains: [], frameDomains: [] };

const calendars = new Map<string, MemoryCalendar>([
  [
    'work',
    {
      name: 'Work',
      timeZone: berlin,
      occurrences: [occurrence({ start: '2026-03-02T10:00:00', timeZone: berlin, title: 'Planning' })],
    },
  ],
]);

describe('MCP Apps views', () => {
  let t: TestApp;
  const clients: Client[] = [];

  /** A client of a new person with one calendar granted at full detail with these scopes. */
  const clientWith = async (scopes: Scope[]) => {
    const userId = await seedUser(t.ctx.db, `u${clients.length}@example.org`);
    const workspaceId = await seedWorkspace(t.ctx.db, `W${clients.length}`, [[userId, 'owner']]);
    await savePolicy(
      t.ctx.db,
      workspaceId,
      { ...defaultPolicy, allowedScopes: ['calendar:read', 'calendar:write'] },
      0,
    );
    const [work] = (await seedMemoryAccount(
      t.ctx,
      { userId, workspaceId },
      memoryProvider('google', calendars),
    )) as [string];
    const { token } = await grantToken(t.ctx, {
      userId,
      workspaceId,
      calendars: [{ calendarId: work, detailLevel: 'full' }],
      scopes,
      resource: 'mcp',
    });
    const client = new Client({ name: 'apps-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.ctx.config.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return { client, work: work! };
  };

  let reader: Client;
  let readerCalendar: string;
  before(async () => {
    t = await startTestApp({
      listen: true,
      providers: { google: memoryProvider('google', calendars) },
      clock: new TestClock('2026-03-01T12:00:00Z'),
    });
    ({ client: reader, work: readerCalendar } = await clientWith(['calendar:read', 'calendar:write']));
  });
  after(async () => {
    for (const client of clients) await client.close();
    await t?.close();
  });

  it('declares resources and the extension', () => {
    const capabilities = reader.getServerCapabilities();
    assert.ok(capabilities?.resources);
    assert.deepEqual(capabilities?.extensions?.[EXTENSION_ID], {});
  });

  it('lists the two views as ui:// resources of the MCP App type, with a CSP allowing no domain', async () => {
    const { resources } = await reader.listResources();
    assert.deepEqual(
      resources.map((r) => [r.uri, r.mimeType, r._meta]),
      [
        [agenda, RESOURCE_MIME_TYPE, { ui: { csp: strictCsp, prefersBorder: true } }],
        [freeTimes, RESOURCE_MIME_TYPE, { ui: { csp: strictCsp, prefersBorder: true } }],
      ],
    );
  });

  it('has no resource templates', async () => {
    assert.deepEqual((await reader.listResourceTemplates()).resourceTemplates, []);
  });

  it('names a view in the listing of the four tools that have one, and no other', async () => {
    const { tools } = await reader.listTools();
    const named = Object.fromEntries(
      tools.flatMap((tool) => (tool._meta === undefined ? [] : [[tool.name, tool._meta]])),
    );
    assert.deepEqual(named, {
      search_events: { ui: { resourceUri: agenda } },
      list_events: { ui: { resourceUri: agenda } },
      get_availability: { ui: { resourceUri: freeTimes } },
      find_meeting_times: { ui: { resourceUri: freeTimes } },
    });
  });

  it('reads each view as one self-contained HTML document: nothing loaded, nothing fetched', async () => {
    for (const uri of [agenda, freeTimes]) {
      const { contents } = await reader.readResource({ uri });
      assert.equal(contents.length, 1);
      const [content] = contents as [{ uri: string; mimeType: string; text: string; _meta: unknown }];
      assert.equal(content.uri, uri);
      assert.equal(content.mimeType, RESOURCE_MIME_TYPE);
      assert.deepEqual(content._meta, { ui: { csp: strictCsp, prefersBorder: true } });
      assert.match(content.text, /^<!doctype html>/);
      for (const outside of [
        /\ssrc=/,
        /\shref=/,
        /url\(/,
        /@import/,
        /https?:/,
        /fetch\(/,
        /XMLHttpRequest/,
        /WebSocket/,
      ])
        assert.doesNotMatch(content.text, outside, `${uri} holds ${outside}`);
      assert.equal(content.text.match(/<\/script>/g)?.length, 1, 'one inline script');
    }
  });

  // The SDK's ResourceNotFoundError: invalid params naming the URI.
  const notFound = (uri: string) => (error: { code: number; data: unknown }) => {
    assert.deepEqual([error.code, error.data], [-32602, { uri }]);
    return true;
  };

  it('answers a view it does not have with resource not found', async () => {
    await assert.rejects(reader.readResource({ uri: 'ui://calendar/week' }), notFound('ui://calendar/week'));
  });

  it('shows a token only the views of the tools it may use', async () => {
    const { client: writer } = await clientWith(['calendar:write']);
    assert.deepEqual((await writer.listResources()).resources, []);
    await assert.rejects(writer.readResource({ uri: agenda }), notFound(agenda));
  });

  it('leaves the tool results as they were: no _meta, nothing for the view', async () => {
    const result = await reader.callTool({
      name: 'list_events',
      arguments: {
        calendarIds: [readerCalendar],
        start: '2026-03-02T00:00:00+01:00',
        end: '2026-03-03T00:00:00+01:00',
      },
    });
    assert.deepEqual(Object.keys(result).sort(), ['content', 'structuredContent']);
  });
});
