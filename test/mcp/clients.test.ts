/**
 * Real MCP clients against `/mcp` over HTTP: the v2 client package pinned to protocol
 * 2026-07-28, the same package in its default 2025-11-25 (legacy) mode, and the v1
 * `@modelcontextprotocol/sdk` client. Each meets the 401 challenge, goes through discovery,
 * registration, sign-in and consent on the real pages, redeems the code, then lists the tools and
 * calls every read tool against in-memory calendars with exact events.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import * as clientV2 from '@modelcontextprotocol/client';
import { UnauthorizedError as V1UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import type { Event } from '../../src/domain/event.ts';
import type { EventIds } from '../../src/domain/occurrences.ts';
import { accountsOf } from '../../src/store/connectedAccounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { TestOAuthProvider } from '../helpers/mcpOAuth.ts';
import {
  assertMatchesSchema,
  consentingProvider,
  type ListedTool,
  readToolNames,
  recordingFetch,
  type SeenRequest,
  structured,
  type ToolResult,
  toolError,
  withoutDescriptions,
} from '../helpers/mcpSession.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  ownFacts,
  seedMemoryAccount,
} from '../helpers/memoryCalendars.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const email = 'ana@example.org';
const berlin = 'Europe/Berlin';
const window = { start: '2026-03-02T00:00:00+01:00', end: '2026-03-04T00:00:00+01:00' };
const { version: serviceVersion } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

const calendars = new Map<string, MemoryCalendar>([
  [
    'work',
    {
      name: 'Work',
      timeZone: berlin,
      occurrences: [
        occurrence({
          providerEventId: 'planning',
          start: '2026-03-02T10:00:00',
          timeZone: berlin,
          title: 'Quarterly planning',
          description: 'Budget review with Herr Müller',
          keywords: ['finance'],
        }),
        // A daily series: two occurrences in the window.
        ...['2026-03-02', '2026-03-03'].map((day) =>
          occurrence({
            providerEventId: 'lunch',
            recurrenceId: `${day}T11:30:00Z`,
            start: `${day}T12:30:00`,
            timeZone: berlin,
            duration: 'PT45M',
            title: 'Lunch with Jonas',
            facts: { ...ownFacts, recurring: true },
          }),
        ),
        occurrence({
          providerEventId: 'offsite',
          start: '2026-03-03T00:00:00',
          duration: 'P1D',
          showWithoutTime: true,
          freeBusyStatus: 'free',
          title: 'Team offsite',
        }),
        occurrence({
          providerEventId: 'focus',
          start: '2026-03-03T09:00:00',
          timeZone: berlin,
          duration: 'PT2H',
          freeBusyStatus: 'free',
          title: 'Focus time',
        }),
        occurrence({
          providerEventId: 'cancelled',
          start: '2026-03-03T17:00:00',
          timeZone: berlin,
          status: 'cancelled',
          title: 'Cancelled sync',
        }),
        // After the window: the provider answers it, the service leaves it out.
        occurrence({
          providerEventId: 'later',
          start: '2026-03-05T10:00:00',
          timeZone: berlin,
          title: 'Later',
        }),
      ],
    },
  ],
  [
    'family',
    {
      name: 'Family',
      timeZone: berlin,
      occurrences: [
        occurrence({
          providerEventId: 'dentist',
          start: '2026-03-02T10:30:00',
          timeZone: berlin,
          title: 'Dentist',
          description: 'Pay the budget invoice',
          locations: [{ name: 'Praxis Dr. Weiß' }],
        }),
        occurrence({
          providerEventId: 'private',
          start: '2026-03-03T15:00:00',
          timeZone: berlin,
          duration: 'PT30M',
          privacy: 'private',
          title: 'Budget planning with lawyer',
        }),
      ],
    },
  ],
  ['holidays', { name: 'Holidays', timeZone: berlin, occurrences: [] }],
]);

/** search_events' input rules as the specification gives them (descriptions aside). */
const searchInputSchema = {
  type: 'object',
  properties: {
    calendarIds: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      items: { type: 'string', minLength: 1, maxLength: 64 },
    },
    query: { type: 'string', minLength: 1, maxLength: 200 },
    start: { type: 'string', minLength: 1, maxLength: 64 },
    end: { type: 'string', minLength: 1, maxLength: 64 },
    limit: { type: 'integer', minimum: 1, maximum: 50 },
    timeZone: { type: 'string', minLength: 1, maxLength: 128 },
  },
  required: ['calendarIds', 'query', 'start', 'end'],
  additionalProperties: false,
};

const readTools = readToolNames;

/** What both SDKs' clients offer that this test uses. */
interface ToolClient {
  listTools(): Promise<{ tools: ListedTool[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<ToolResult>;
  close(): Promise<void>;
}

interface Connected {
  client: ToolClient;
  protocolVersion: string | undefined;
  era: string | undefined;
  serverVersion: unknown;
  instructions: string | undefined;
}

interface Flavour {
  name: string;
  expectedVersion: string;
  expectedEra: string | undefined;
  /** The first JSON-RPC method the client sends once it holds a token. */
  firstMethod: string;
  /** Connects without a token: must fail with the SDK's UnauthorizedError after the browser step. */
  meetChallenge(provider: TestOAuthProvider, fetchFn: typeof fetch, mcp: URL): Promise<void>;
  connect(provider: TestOAuthProvider, fetchFn: typeof fetch, mcp: URL): Promise<Connected>;
}

function v2Flavour(name: string, pinned: boolean): Flavour {
  const options = (): clientV2.ClientOptions =>
    pinned ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
  return {
    name,
    expectedVersion: pinned ? '2026-07-28' : '2025-11-25',
    expectedEra: pinned ? 'modern' : 'legacy',
    firstMethod: pinned ? 'server/discover' : 'initialize',
    async meetChallenge(provider, fetchFn, mcp) {
      const transport = new clientV2.StreamableHTTPClientTransport(mcp, {
        authProvider: provider,
        fetch: fetchFn,
      });
      await assert.rejects(
        new clientV2.Client({ name: 'e2e', version: '1' }, options()).connect(transport),
        (e) => e instanceof clientV2.UnauthorizedError,
      );
      // v2 reads code and iss (RFC 9207) from the callback.
      await transport.finishAuth(provider.callbacks.at(-1)!.searchParams);
    },
    async connect(provider, fetchFn, mcp) {
      const client = new clientV2.Client({ name: 'e2e', version: '1' }, options());
      await client.connect(
        new clientV2.StreamableHTTPClientTransport(mcp, { authProvider: provider, fetch: fetchFn }),
      );
      return {
        client: {
          listTools: async () => (await client.listTools()) as unknown as { tools: ListedTool[] },
          callTool: async (params) => (await client.callTool(params)) as unknown as ToolResult,
          close: () => client.close(),
        },
        protocolVersion: client.getNegotiatedProtocolVersion(),
        era: client.getProtocolEra(),
        serverVersion: client.getServerVersion(),
        instructions: client.getInstructions(),
      };
    },
  };
}

const v1Flavour: Flavour = {
  name: 'the v1 @modelcontextprotocol/sdk Client (2025-11-25)',
  expectedVersion: '2025-11-25',
  expectedEra: undefined,
  firstMethod: 'initialize',
  async meetChallenge(provider, fetchFn, mcp) {
    const transport = new V1Transport(mcp, { authProvider: provider, fetch: fetchFn });
    await assert.rejects(
      new V1Client({ name: 'e2e', version: '1' }).connect(transport),
      (e) => e instanceof V1UnauthorizedError,
    );
    await transport.finishAuth(provider.lastCallback.code!);
  },
  async connect(provider, fetchFn, mcp) {
    const client = new V1Client({ name: 'e2e', version: '1' });
    const transport = new V1Transport(mcp, { authProvider: provider, fetch: fetchFn });
    await client.connect(transport);
    return {
      client: {
        listTools: async () => (await client.listTools()) as unknown as { tools: ListedTool[] },
        callTool: async (params) => (await client.callTool(params)) as unknown as ToolResult,
        close: () => client.close(),
      },
      protocolVersion: transport.protocolVersion,
      era: undefined,
      serverVersion: client.getServerVersion(),
      instructions: client.getInstructions(),
    };
  },
};

const flavours = [
  v2Flavour('the v2 Client pinned to 2026-07-28', true),
  v2Flavour('the v2 Client in its default mode (2025-11-25)', false),
  v1Flavour,
];

describe('MCP clients complete OAuth and call every read tool', () => {
  let t: TestApp;
  let mcp: URL;
  let work: string;
  let family: string;
  let holidays: string;
  let accountId: string;
  let ids: EventIds;

  before(async () => {
    const provider = memoryProvider('google', calendars);
    t = await startTestApp({ listen: true, providers: { google: provider } });
    mcp = new URL(`${t.ctx.config.baseUrl}/mcp`);
    const userId = await seedUser(t.ctx.db, email);
    const workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [[userId, 'owner']]);
    [work, family, holidays] = (await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider)) as [
      string,
      string,
      string,
    ];
    accountId = (await accountsOf(t.ctx.db, userId, workspaceId))[0]!.id;
    ids = createEventIds(t.ctx.secretKey);
  });
  after(() => t?.close());

  /** The event as the client must see it: read-only token, so never editable (access_denied). */
  const event = (
    calendarId: string,
    providerEventId: string,
    fields: Partial<Event> & Pick<Event, 'title' | 'start' | 'duration'>,
    recurrenceId?: string,
  ): Event => ({
    eventId: ids.eventId(calendarId, providerEventId),
    calendarId,
    occurrenceId: ids.occurrenceId(calendarId, providerEventId, recurrenceId),
    showWithoutTime: false,
    status: 'confirmed',
    freeBusyStatus: 'busy',
    canRespond: false,
    canEdit: false,
    editBlockedReason: 'access_denied',
    ...fields,
  });

  /** Every event of Work (full) and Family (titles) in the window, in the service's order. */
  const expectedEvents = (): Event[] => [
    event(work, 'planning', {
      title: 'Quarterly planning',
      description: 'Budget review with Herr Müller',
      keywords: ['finance'],
      start: '2026-03-02T10:00:00+01:00',
      timeZone: berlin,
      duration: 'PT1H',
    }),
    // Family is shared at "titles": no description.
    event(family, 'dentist', {
      title: 'Dentist',
      locations: [{ name: 'Praxis Dr. Weiß' }],
      start: '2026-03-02T10:30:00+01:00',
      timeZone: berlin,
      duration: 'PT1H',
    }),
    event(
      work,
      'lunch',
      { title: 'Lunch with Jonas', start: '2026-03-02T12:30:00+01:00', timeZone: berlin, duration: 'PT45M' },
      '2026-03-02T11:30:00Z',
    ),
    // All-day: placed with the calendar's zone, shown without a zone of its own.
    event(work, 'offsite', {
      title: 'Team offsite',
      start: '2026-03-03',
      duration: 'P1D',
      showWithoutTime: true,
      freeBusyStatus: 'free',
    }),
    event(work, 'focus', {
      title: 'Focus time',
      start: '2026-03-03T09:00:00+01:00',
      timeZone: berlin,
      duration: 'PT2H',
      freeBusyStatus: 'free',
    }),
    event(
      work,
      'lunch',
      { title: 'Lunch with Jonas', start: '2026-03-03T12:30:00+01:00', timeZone: berlin, duration: 'PT45M' },
      '2026-03-03T11:30:00Z',
    ),
    // Private, and the grant has no private details: a busy block with the placeholder title.
    event(family, 'private', {
      title: 'Busy',
      start: '2026-03-03T15:00:00+01:00',
      timeZone: berlin,
      duration: 'PT30M',
    }),
    event(work, 'cancelled', {
      title: 'Cancelled sync',
      start: '2026-03-03T17:00:00+01:00',
      timeZone: berlin,
      duration: 'PT1H',
      status: 'cancelled',
    }),
  ];

  for (const flavour of flavours) {
    it(`${flavour.name}: OAuth from the 401 challenge, then all four read tools`, async () => {
      const { provider, consentPages } = consentingProvider(t, {
        email,
        clientName: `E2E ${flavour.name}`,
        choice: { calendars: { [work]: 'full', [family]: 'titles' } },
      });
      const { fetchFn, seen } = recordingFetch();
      const line = (s: SeenRequest) => `${s.method} ${s.path} ${s.status}`;

      // 1. No token: 401 with resource_metadata → discovery → registration → the browser.
      await flavour.meetChallenge(provider, fetchFn, mcp);
      assert.deepEqual(seen.slice(0, 4).map(line), [
        'POST /mcp 401',
        'GET /.well-known/oauth-protected-resource/mcp 200',
        'GET /.well-known/oauth-authorization-server/api/auth 200',
        'POST /api/auth/reg 201',
      ]);
      assert.equal(seen[0]?.rpcMethod, flavour.firstMethod);
      assert.deepEqual(seen.slice(4).map(line), ['POST /api/auth/token 200']);
      assert.equal(provider.authorizationUrls.length, 1);
      const authorization = provider.authorizationUrls[0]!;
      assert.equal(authorization.searchParams.get('resource'), mcp.href);
      assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
      // The consent page showed the person's real calendars and the client's name.
      assert.equal(consentPages.length, 1);
      for (const name of ['Work', 'Family', 'Holidays', `E2E ${flavour.name}`])
        assert.ok(consentPages[0]!.includes(name), `the consent page names ${name}`);
      const callback = provider.lastCallback;
      assert.ok(callback.stateMatches);
      assert.equal(callback.iss, `${t.ctx.config.baseUrl}/api/auth`);
      const claims = decodeJwt(provider.tokens()!.access_token);
      assert.equal(claims.aud, mcp.href);
      // The client asked for every scope; the default workspace policy allows reading only.
      assert.equal(claims.scope, 'calendar:read');

      // 2. With the token: the protocol version each client settles on.
      seen.length = 0;
      const connected = await flavour.connect(provider, fetchFn, mcp);
      const { client } = connected;
      try {
        assert.equal(connected.protocolVersion, flavour.expectedVersion);
        assert.equal(connected.era, flavour.expectedEra);
        assert.deepEqual(connected.serverVersion, {
          name: 'calendar-access-service',
          version: serviceVersion,
        });
        assert.match(
          connected.instructions ?? '',
          /^Calendar access for the user who authorized this assistant\./,
        );
        assert.equal(seen[0]?.rpcMethod, flavour.firstMethod);
        assert.equal(seen[0]?.status, 200);

        // 3. tools/list: exactly the read tools, closed schemas, search_events with the spec's bounds.
        const { tools } = await client.listTools();
        assert.deepEqual(
          tools.map((tool) => tool.name),
          readTools,
        );
        for (const tool of tools) {
          assert.equal(tool.inputSchema.type, 'object', tool.name);
          assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
          assert.equal(tool.outputSchema?.type, 'object', tool.name);
          assert.equal(tool.outputSchema?.additionalProperties, false, tool.name);
          assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
        }
        const tool = (name: string) => tools.find((x) => x.name === name)!;
        assert.deepEqual(withoutDescriptions(tool('search_events').inputSchema), searchInputSchema);
        assert.deepEqual(tool('search_events').outputSchema?.required, [
          'ok',
          'termine',
          'matched',
          'truncated',
          'searchedFields',
        ]);

        const call = async (name: string, args: Record<string, unknown>) => {
          const content = structured(await client.callTool({ name, arguments: args }));
          assertMatchesSchema(tool(name).outputSchema, content);
          return content;
        };
        const all = expectedEvents();
        const calendarIds = [work, family];

        // list_calendars: the two shared calendars (by name), Holidays counted as not selected.
        assert.deepEqual(await call('list_calendars', {}), {
          ok: true,
          calendars: [
            {
              id: family,
              name: 'Family',
              provider: 'google',
              accountId,
              primary: false,
              readOnly: false,
              detailLevel: 'titles',
              timeZone: berlin,
            },
            {
              id: work,
              name: 'Work',
              provider: 'google',
              accountId,
              primary: false,
              readOnly: false,
              detailLevel: 'full',
              timeZone: berlin,
            },
          ],
          excluded: [{ reason: 'not_selected', count: 1 }],
        });

        // search_events: every word, any order, case and accents folded; hidden text never matches.
        assert.deepEqual(await call('search_events', { calendarIds, query: 'muller BUDGET', ...window }), {
          ok: true,
          termine: [all[0]],
          matched: 1,
          truncated: false,
          searchedFields: ['title', 'description', 'categories', 'keywords'],
        });
        assert.deepEqual(await call('search_events', { calendarIds, query: 'lunch', limit: 1, ...window }), {
          ok: true,
          termine: [all[2]],
          matched: 2,
          truncated: true,
          searchedFields: ['title', 'description', 'categories', 'keywords'],
        });
        // Only the busy placeholder of the private event is searchable.
        assert.deepEqual(await call('search_events', { calendarIds: [family], query: 'busy', ...window }), {
          ok: true,
          termine: [all[6]],
          matched: 1,
          truncated: false,
          searchedFields: ['title'],
        });

        // list_events: every occurrence in the window, ordered; then page by page.
        assert.deepEqual(await call('list_events', { calendarIds, ...window }), {
          ok: true,
          termine: all,
          truncated: false,
        });
        const first = await call('list_events', { calendarIds, ...window, limit: 5 });
        assert.deepEqual(first.termine, all.slice(0, 5));
        assert.equal(first.truncated, true);
        assert.equal(typeof first.nextCursor, 'string');
        assert.deepEqual(
          await call('list_events', { calendarIds, ...window, limit: 5, cursor: first.nextCursor }),
          { ok: true, termine: all.slice(5), truncated: false },
        );

        // get_availability: busy, not free or cancelled, merged across calendars.
        assert.deepEqual(await call('get_availability', { calendarIds, ...window, timeZone: berlin }), {
          ok: true,
          busy: [
            { start: '2026-03-02T10:00:00+01:00', end: '2026-03-02T11:30:00+01:00' },
            { start: '2026-03-02T12:30:00+01:00', end: '2026-03-02T13:15:00+01:00' },
            { start: '2026-03-03T12:30:00+01:00', end: '2026-03-03T13:15:00+01:00' },
            { start: '2026-03-03T15:00:00+01:00', end: '2026-03-03T15:30:00+01:00' },
          ],
          truncated: false,
        });
        assert.deepEqual(
          await call('get_availability', {
            calendarIds: [family],
            start: '2026-03-02T00:00:00Z',
            end: '2026-03-03T00:00:00Z',
          }),
          {
            ok: true,
            busy: [{ start: '2026-03-02T09:30:00Z', end: '2026-03-02T10:30:00Z' }],
            truncated: false,
          },
        );

        // A tool error is a result the client reads, not a protocol failure.
        assert.deepEqual(
          toolError(
            await client.callTool({
              name: 'search_events',
              arguments: { calendarIds: [holidays], query: 'x', ...window },
            }),
          ),
          {
            code: 'calendar_not_permitted',
            message:
              'These calendar ids are unknown to this grant: use the ids list_calendars returns (GET /v1/calendars on REST), not calendar names.',
            calendarIds: [holidays],
          },
        );

        // Every request after the handshake spoke the negotiated version.
        const posts = seen.filter((s) => s.method === 'POST' && s.path === '/mcp');
        assert.ok(posts.length >= 12);
        for (const post of posts.slice(flavour.firstMethod === 'initialize' ? 1 : 0))
          assert.equal(post.protocolVersion, flavour.expectedVersion, `${post.rpcMethod}`);
        assert.ok(
          posts.every(
            (p) => p.status === 200 || (p.status === 202 && p.rpcMethod === 'notifications/initialized'),
          ),
          JSON.stringify(posts),
        );
      } finally {
        await client.close();
      }
    });
  }
});
