/**
 * Calendars others share with the person, end to end through a real MCP client. Microsoft: an
 * account connected with the scopes the service asks for (the Graph fake refuses a shared
 * calendar's events without the shared ones) lists its colleague's read-only and writable
 * calendars; events of the read-only one cannot be edited and a write there is refused before
 * Graph is asked; the writable one takes a new event. Google: shared calendars come with their
 * access role (free/busy only: times only, whatever the grant says); hidden ones stay out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import type { Event } from '../../src/domain/event.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import type { Credentials } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { FakeGoogle } from '../fakes/google.ts';
import { FakeGraph } from '../fakes/graph.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const me = 'person@example.com';
const colleague = { name: 'Boss', address: 'boss@example.com' };
const window = { start: '2026-04-06T00:00:00Z', end: '2026-04-13T00:00:00Z' };

type ToolAnswer = {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: Array<{ text: string }>;
};

const call = async (client: Client, tool: string, args: Record<string, unknown>) =>
  (await client.callTool({ name: tool, arguments: args })) as ToolAnswer;
const ok = async (client: Client, tool: string, args: Record<string, unknown>) => {
  const result = await call(client, tool, args);
  assert.notEqual(result.isError, true, `${tool}: ${result.content[0]?.text}`);
  return result.structuredContent!;
};
const errorCode = (result: ToolAnswer) => {
  assert.equal(result.isError, true);
  return (JSON.parse(result.content[0]!.text) as { error: { code: string } }).error.code;
};

/**
 * The person's account connected with these credentials, every calendar granted in full (the
 * provider's right caps it), and an MCP client for the grant.
 */
async function connectedClient(
  t: TestApp,
  credentials: Credentials,
): Promise<{ client: Client; ids: Record<string, string> }> {
  const userId = await seedUser(t.ctx.db, me);
  const workspaceId = await seedWorkspace(t.ctx.db, 'Office', [[userId, 'owner']]);
  await savePolicy(
    t.ctx.db,
    workspaceId,
    { ...defaultPolicy, allowedScopes: ['calendar:read', 'calendar:write'] },
    0,
  );
  const { calendars } = await addConnection(t.ctx, { userId, workspaceId }, credentials, me);
  const { token } = await grantToken(t.ctx, {
    userId,
    workspaceId,
    calendars: calendars.map((c) => ({ calendarId: c.id, detailLevel: 'full' as const })),
    scopes: ['calendar:read', 'calendar:write'],
  });
  const client = new Client({ name: 'shared-e2e', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.ctx.config.baseUrl}/mcp`), {
      authProvider: { token: async () => token },
    }),
  );
  return { client, ids: Object.fromEntries(calendars.map((c) => [c.name, c.id])) };
}

describe('shared calendars end to end: Microsoft', () => {
  let graph: FakeGraph;
  let t: TestApp;
  let client: Client;
  let ids: Record<string, string>;

  /** Tokens as the service's own connect flow obtains them: its authorization URL, its code exchange. */
  async function connectedTokens() {
    const connector = t.ctx.connectors.microsoft!;
    const codeVerifier = 'verifier-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFG';
    const authorize = connector.authorizationUrl({ state: 'state-1', codeVerifier });
    const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
    const code = back.searchParams.get('code');
    assert.ok(code, back.href);
    return (await connector.exchange({ code, codeVerifier })).tokens;
  }

  before(async () => {
    graph = await FakeGraph.start({
      users: [
        {
          email: me,
          calendars: [
            { id: 'own', name: 'Calendar', isDefaultCalendar: true },
            {
              id: 'boss-readonly',
              name: 'Boss',
              canEdit: false,
              owner: colleague,
              events: [
                {
                  id: 'board',
                  subject: 'Board meeting',
                  start: '2026-04-08T10:00:00',
                  end: '2026-04-08T11:00:00',
                },
              ],
            },
            { id: 'boss-team', name: 'Boss team', owner: colleague },
          ],
        },
      ],
    });
    t = await startTestApp({
      listen: true,
      env: graph.env(),
      adapters: { sleep: async () => {} },
    });
    graph.identity.client.redirectUris.push(`${t.ctx.config.baseUrl}/account/connect/microsoft/callback`);
    const credentials = { kind: 'microsoft' as const, ...(await connectedTokens()) };
    ({ client, ids } = await connectedClient(t, credentials));
  });
  after(async () => {
    await client?.close();
    await t?.close();
    await graph?.close();
  });

  it('lists the calendars shared with the person, read-only where the share is', async () => {
    const { calendars } = await ok(client, 'list_calendars', {});
    assert.deepEqual(
      (calendars as Array<{ name: string; readOnly: boolean; detailLevel: string }>)
        .map((c) => [c.name, c.readOnly, c.detailLevel])
        .sort(),
      [
        ['Boss team', false, 'full'],
        ['Boss', true, 'full'],
        ['Calendar', false, 'full'],
      ],
    );
  });

  it('reads the read-only calendar with canEdit false, and refuses a write there before Graph is asked', async () => {
    const { termine } = await ok(client, 'list_events', { calendarIds: [ids.Boss], ...window });
    assert.deepEqual(
      (termine as Event[]).map((e) => [e.title, e.canEdit, e.editBlockedReason]),
      [['Board meeting', false, 'calendar_read_only']],
    );
    const writes = graph.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/me/')).length;
    const refused = await call(client, 'create_event', {
      calendarId: ids.Boss,
      title: 'Prep',
      start: '2026-04-09T09:00:00Z',
      end: '2026-04-09T09:30:00Z',
      idempotencyKey: 'shared-prep',
    });
    assert.equal(errorCode(refused), 'calendar_read_only');
    assert.equal(
      graph.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/me/')).length,
      writes,
    );
  });

  it('writes to the calendar shared with write access, in its owner’s calendar', async () => {
    const created = await ok(client, 'create_event', {
      calendarId: ids['Boss team'],
      title: 'Team lunch',
      start: '2026-04-10T12:00:00Z',
      end: '2026-04-10T13:00:00Z',
      idempotencyKey: 'shared-lunch',
    });
    assert.equal(created.outcome, 'applied');
    assert.deepEqual(
      graph.storedEvents('boss-team').map((e) => e.subject),
      ['Team lunch'],
    );
  });
});

describe('shared calendars end to end: Google', () => {
  let google: FakeGoogle;
  let t: TestApp;
  let client: Client;
  let ids: Record<string, string>;
  const secret = {
    summary: 'Acquisition talks',
    description: 'Confidential',
    start: { dateTime: '2026-04-08T10:00:00Z' },
    end: { dateTime: '2026-04-08T11:00:00Z' },
  };

  before(async () => {
    google = await FakeGoogle.start({
      user: { email: me },
      calendars: [
        { id: me, summary: 'Mine', timeZone: 'UTC', accessRole: 'owner', primary: true },
        {
          id: 'boss@example.com',
          summary: 'Boss',
          timeZone: 'UTC',
          accessRole: 'reader',
          events: [{ id: 'board', ...secret, summary: 'Board meeting' }],
        },
        {
          id: 'ceo@example.com',
          summary: 'CEO',
          timeZone: 'UTC',
          accessRole: 'freeBusyReader',
          events: [{ id: 'talks', ...secret }],
        },
        {
          id: 'old@example.com',
          summary: 'Old project',
          timeZone: 'UTC',
          accessRole: 'writer',
          hidden: true,
        },
      ],
    });
    const http = new ProviderHttp({ sleep: async () => {} });
    t = await startTestApp({
      listen: true,
      providers: { google: createGoogleProvider({ http, config: google.config(), clock: systemClock }) },
    });
    ({ client, ids } = await connectedClient(t, { kind: 'google', ...google.oauth.issue() }));
  });
  after(async () => {
    await client?.close();
    await t?.close();
    await google?.close();
  });

  it('lists shared calendars with the rights Google grants, not the hidden one', async () => {
    const { calendars } = await ok(client, 'list_calendars', {});
    assert.deepEqual(
      (calendars as Array<{ name: string; readOnly: boolean; detailLevel: string }>).map((c) => [
        c.name,
        c.readOnly,
        c.detailLevel,
      ]),
      [
        ['Mine', false, 'full'],
        ['Boss', true, 'full'],
        ['CEO', true, 'busy'],
      ],
    );
  });

  it('shows a free/busy calendar as times only, and refuses writes to read-only ones', async () => {
    const { termine } = await ok(client, 'list_events', { calendarIds: [ids.CEO, ids.Boss], ...window });
    const busyOnly = (termine as Event[]).filter((e) => e.calendarId === ids.CEO);
    assert.equal(busyOnly.length, 1);
    assert.doesNotMatch(JSON.stringify(busyOnly), /Acquisition|Confidential/);
    assert.deepEqual(
      // Both at 10:00: the order between them is not the point.
      (termine as Event[]).map((e) => [e.calendarId === ids.CEO ? 'CEO' : 'Boss', e.canEdit]).sort(),
      [
        ['Boss', false],
        ['CEO', false],
      ],
    );
    for (const calendarId of [ids.Boss, ids.CEO]) {
      const refused = await call(client, 'create_event', {
        calendarId,
        title: 'Prep',
        start: '2026-04-09T09:00:00Z',
        end: '2026-04-09T09:30:00Z',
        idempotencyKey: `google-prep-${calendarId}`,
      });
      assert.equal(errorCode(refused), 'calendar_read_only');
    }
  });
});
