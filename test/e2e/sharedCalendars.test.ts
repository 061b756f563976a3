/**
 * Calendars others share with the person, end to end through a real MCP client: a Microsoft
 * account connected with the scopes the service asks for (the Graph fake refuses a shared
 * calendar's events without the shared ones) lists its colleague's read-only and writable
 * calendars; events of the read-only one cannot be edited and a write there is refused before
 * Graph is asked; the writable one takes a new event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { connectAccount } from '../../src/calendars/accounts/connectedAccounts.ts';
import type { Event } from '../../src/domain/event.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { FakeGraph } from '../fakes/graph.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const me = 'person@example.com';
const colleague = { name: 'Boss', address: 'boss@example.com' };
const window = { start: '2026-04-06T00:00:00Z', end: '2026-04-13T00:00:00Z' };

describe('shared calendars end to end: Microsoft', () => {
  let graph: FakeGraph;
  let t: TestApp;
  let client: Client;
  const ids: Record<string, string> = {};

  const call = async (tool: string, args: Record<string, unknown>) =>
    (await client.callTool({ name: tool, arguments: args })) as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
      content: Array<{ text: string }>;
    };
  const ok = async (tool: string, args: Record<string, unknown>) => {
    const result = await call(tool, args);
    assert.notEqual(result.isError, true, `${tool}: ${result.content[0]?.text}`);
    return result.structuredContent!;
  };

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
    const cfg = graph.config();
    t = await startTestApp({
      listen: true,
      env: {
        MICROSOFT_CLIENT_ID: cfg.clientId,
        MICROSOFT_CLIENT_SECRET: cfg.clientSecret,
        MICROSOFT_AUTH_URL: cfg.authorizationUrl,
        MICROSOFT_TOKEN_URL: cfg.tokenUrl,
        MICROSOFT_API_URL: cfg.apiBaseUrl,
      },
      adapters: { sleep: async () => {} },
    });
    graph.identity.client.redirectUris.push(`${t.ctx.config.baseUrl}/account/connect/microsoft/callback`);
    const userId = await seedUser(t.ctx.db, me);
    const workspaceId = await seedWorkspace(t.ctx.db, 'Office', [[userId, 'owner']]);
    await savePolicy(
      t.ctx.db,
      workspaceId,
      { ...defaultPolicy, allowedScopes: ['calendar:read', 'calendar:write'] },
      0,
    );
    const credentials = { kind: 'microsoft' as const, ...(await connectedTokens()) };
    const { calendars } = await connectAccount(t.ctx, { userId, workspaceId }, credentials, me);
    for (const c of calendars) ids[c.name] = c.id;
    const { token } = await grantToken(t.ctx, {
      userId,
      workspaceId,
      calendars: calendars.map((c) => ({ calendarId: c.id, detailLevel: 'full' as const })),
      scopes: ['calendar:read', 'calendar:write'],
    });
    client = new Client({ name: 'shared-e2e', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.ctx.config.baseUrl}/mcp`), {
        authProvider: { token: async () => token },
      }),
    );
  });
  after(async () => {
    await client?.close();
    await t?.close();
    await graph?.close();
  });

  it('lists the calendars shared with the person, read-only where the share is', async () => {
    const { calendars } = await ok('list_calendars', {});
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
    const { termine } = await ok('list_events', { calendarIds: [ids.Boss], ...window });
    assert.deepEqual(
      (termine as Event[]).map((e) => [e.title, e.canEdit, e.editBlockedReason]),
      [['Board meeting', false, 'calendar_read_only']],
    );
    const writes = graph.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/me/')).length;
    const refused = await call('create_event', {
      calendarId: ids.Boss,
      title: 'Prep',
      start: '2026-04-09T09:00:00Z',
      end: '2026-04-09T09:30:00Z',
      idempotencyKey: 'shared-prep',
    });
    assert.equal(refused.isError, true);
    assert.equal(
      (JSON.parse(refused.content[0]!.text) as { error: { code: string } }).error.code,
      'calendar_read_only',
    );
    assert.equal(
      graph.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/me/')).length,
      writes,
    );
  });

  it('writes to the calendar shared with write access, in its owner’s calendar', async () => {
    const created = await ok('create_event', {
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
