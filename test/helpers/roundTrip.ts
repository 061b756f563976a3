/**
 * The harness of the round-trip suites (test/e2e/*RoundTrips): one person owning a workspace that
 * allows every scope, one calendar account of a real provider (or its fake) connected, and a real
 * MCP client holding a full-detail grant of its "Team" calendar; the tools called through it.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import { defaultPolicy, type Scope, type WorkspacePolicy } from '../../src/policy/workspacePolicy.ts';
import type { Credentials } from '../../src/providers/port.ts';
import type { Providers } from '../../src/providers/registry.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from './app.ts';
import { grantToken } from './grantToken.ts';
import { seedUser, seedWorkspace } from './seed.ts';

/** What a provider's side of a round trip gives the application. */
export interface RoundTripWorld {
  providers: Providers;
  credentials: Credentials;
  close(): Promise<void>;
}

/** Requests that change nothing at the provider. */
export const isWrite = (method: string) => !['GET', 'PROPFIND', 'REPORT', 'OPTIONS'].includes(method);

const scopes: Scope[] = ['calendar:read', 'calendar:write', 'calendar:rsvp'];

type ToolResult = {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: Array<{ text: string }>;
};

export interface RoundTrip<W> {
  w: W;
  t: TestApp;
  team: string;
  person: { userId: string; workspaceId: string };
}

/**
 * Registers the suite's hooks (call it inside `describe`): `open` starts the provider's side,
 * `email` is the person's sign-in address, `name` the account's name, `policy` what the workspace
 * allows besides every scope.
 */
export function roundTripSuite<W extends RoundTripWorld>(
  open: () => Promise<W>,
  { email, name, policy }: { email: string; name: string; policy?: Partial<WorkspacePolicy> },
) {
  let trip: RoundTrip<W> | undefined;
  let client: Client | undefined;
  let world: W | undefined;
  const started = (): RoundTrip<W> => {
    if (trip === undefined) throw new Error('the round trip is not started');
    return trip;
  };

  const call = async (tool: string, args: Record<string, unknown>) =>
    (await client!.callTool({ name: tool, arguments: args })) as ToolResult;
  const ok = async (tool: string, args: Record<string, unknown>) => {
    const result = await call(tool, args);
    assert.notEqual(result.isError, true, `${tool}: ${result.content[0]?.text}`);
    return result.structuredContent!;
  };
  const failed = async (tool: string, args: Record<string, unknown>) => {
    const result = await call(tool, args);
    assert.equal(result.isError, true, `${tool} should fail: ${JSON.stringify(result.structuredContent)}`);
    return (JSON.parse(result.content[0]!.text) as { error: Record<string, unknown> }).error;
  };

  let app: TestApp | undefined;
  before(async () => {
    world = await open();
    const t = await startTestApp({ listen: true, providers: world.providers });
    app = t;
    const userId = await seedUser(t.ctx.db, email);
    const workspaceId = await seedWorkspace(t.ctx.db, 'Team', [[userId, 'owner']]);
    await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, allowedScopes: scopes, ...policy }, 0);
    const person = { userId, workspaceId };
    const { calendars } = await addConnection(t.ctx, person, world.credentials, name);
    const team = calendars.find((c) => c.name === 'Team')!.id;
    const { token } = await grantToken(t.ctx, {
      ...person,
      calendars: [{ calendarId: team, detailLevel: 'full' }],
      scopes,
    });
    client = new Client({ name: 'round-trip-e2e', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.ctx.config.baseUrl}/mcp`), {
        authProvider: { token: async () => token },
      }),
    );
    trip = { w: world, t, team, person };
  });
  after(async () => {
    await client?.close();
    await app?.close();
    await world?.close();
  });

  return { started, call, ok, failed };
}
