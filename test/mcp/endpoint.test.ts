/**
 * The rules of `/mcp` that a client library would hide, with raw `fetch` against the listening
 * service: Origin checks and CORS, the bearer challenge and audience, tools by effective scope,
 * the per-grant request budget, methods and bodies the endpoint refuses, edit and respond rights
 * narrowed by scopes and policy, calendars outside the grant, and partial results when a
 * provider fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as clientV2 from '@modelcontextprotocol/client';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import type { Event } from '../../src/domain/event.ts';
import { AppError } from '../../src/errors.ts';
import { defaultPolicy, type Scope } from '../../src/policy/workspacePolicy.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import {
  acceptBoth,
  callToolRaw,
  listToolsRaw,
  postMcp,
  readMcpReply,
  readToolNames,
  rpc,
  structured,
  toolError,
} from '../helpers/mcpSession.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  ownFacts,
  seedMemoryAccount,
} from '../helpers/memoryCalendars.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const berlin = 'Europe/Berlin';
const allowedOrigin = 'https://assistant.example';
const window = { start: '2026-03-02T00:00:00+01:00', end: '2026-03-03T00:00:00+01:00' };
const readTools = readToolNames;
/**
 * What the tools may cost a conversation, in tokens (about 4 bytes each): what a host gives the
 * model (names, descriptions, input schemas), and the whole listing with the output schemas the
 * client checks answers against.
 */
const modelToolTokens = 9_000;
/** 11,500 until list_rooms and the MCP Apps `_meta` (read by hosts, never given to a model) came. */
const toolListTokens = 12_000;

/** Provider calendar ids; every seeded account holds all of them (under ids of its own). */
const calendars = new Map<string, MemoryCalendar>([
  [
    'work',
    {
      name: 'Work',
      timeZone: berlin,
      occurrences: [
        occurrence({
          providerEventId: 'own',
          start: '2026-03-02T10:00:00',
          timeZone: berlin,
          title: 'Own planning',
        }),
        occurrence({
          providerEventId: 'invite',
          start: '2026-03-02T14:00:00',
          timeZone: berlin,
          title: 'Invited planning',
          responseStatus: 'needs-action',
          facts: { ...ownFacts, organizer: 'other', attendees: true, userIsAttendee: true },
        }),
      ],
    },
  ],
  [
    'broken',
    {
      name: 'Broken',
      timeZone: berlin,
      occurrences: [],
      failure: new AppError('provider_unavailable', 'The provider did not answer.'),
    },
  ],
  ['crashing', { name: 'Crashing', timeZone: berlin, occurrences: [], failure: new Error('socket hang up') }],
  [
    'partial',
    {
      name: 'Partial',
      timeZone: berlin,
      occurrences: [
        occurrence({
          providerEventId: 'kept',
          start: '2026-03-02T08:00:00',
          timeZone: berlin,
          title: 'Kept planning',
        }),
      ],
      skipped: [{ providerEventId: 'garbled', reason: 'unparseable VEVENT' }],
    },
  ],
]);

interface Account {
  userId: string;
  workspaceId: string;
  work: string;
  broken: string;
  crashing: string;
  partial: string;
}

const problem = (status: number, title: string, code: string, detail: string) => ({
  type: 'about:blank',
  title,
  status,
  code,
  detail,
  instance: '/mcp',
});

describe('/mcp endpoint rules', () => {
  let t: TestApp;
  let base: string;
  let mcp: string;
  let ana: Account;
  /** Ana's calendars in a workspace whose policy allows writing and responding. */
  let anaWriters: Account;
  let bob: Account;
  let readToken: string;

  const provider = memoryProvider('google', calendars);

  const seedAccount = async (userId: string, workspaceId: string): Promise<Account> => {
    const [work, broken, crashing, partial] = (await seedMemoryAccount(
      t.ctx,
      { userId, workspaceId },
      provider,
    )) as [string, string, string, string];
    return { userId, workspaceId, work, broken, crashing, partial };
  };
  /** A token for a grant of these calendars (all at full) with these scopes. */
  const tokenFor = async (account: Account, calendarIds: string[], scopes?: Scope[]) =>
    (
      await grantToken(t.ctx, {
        userId: account.userId,
        workspaceId: account.workspaceId,
        calendars: calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'full' })),
        ...(scopes === undefined ? {} : { scopes }),
      })
    ).token;

  before(async () => {
    t = await startTestApp({
      listen: true,
      env: { MCP_ALLOWED_ORIGINS: allowedOrigin },
      providers: { google: provider },
    });
    base = t.ctx.config.baseUrl;
    mcp = `${base}/mcp`;
    const anaId = await seedUser(t.ctx.db, 'ana@example.org');
    const bobId = await seedUser(t.ctx.db, 'bob@example.org');
    const acme = await seedWorkspace(t.ctx.db, 'Acme', [
      [anaId, 'owner'],
      [bobId, 'member'],
    ]);
    const writers = await seedWorkspace(t.ctx.db, 'Writers', [[anaId, 'owner']]);
    await savePolicy(
      t.ctx.db,
      writers,
      {
        ...defaultPolicy,
        allowedScopes: ['calendar:read', 'calendar:write', 'calendar:rsvp', 'calendar:rooms'],
      },
      0,
    );
    ana = await seedAccount(anaId, acme);
    bob = await seedAccount(bobId, acme);
    anaWriters = await seedAccount(anaId, writers);
    readToken = await tokenFor(ana, [ana.work, ana.broken, ana.crashing, ana.partial]);
  });
  after(() => t?.close());

  const toolsList = () => rpc('tools/list');

  describe('Origin', () => {
    it('accepts a request without Origin (no CORS headers) and one from the service itself', async () => {
      const plain = await postMcp(mcp, toolsList(), { token: readToken });
      assert.equal(plain.status, 200);
      assert.equal(plain.headers.get('access-control-allow-origin'), null);

      const own = await postMcp(mcp, toolsList(), { token: readToken, headers: { origin: base } });
      assert.equal(own.status, 200);
      assert.equal(own.headers.get('access-control-allow-origin'), base);
      assert.match(own.headers.get('vary') ?? '', /\bOrigin\b/);
    });

    it('refuses a foreign Origin with 403 even with a valid token, before looking at the token', async () => {
      for (const origin of ['https://evil.example', 'null', `${base}.evil.example`, 'http://localhost']) {
        const withToken = await postMcp(mcp, toolsList(), { token: readToken, headers: { origin } });
        assert.equal(withToken.status, 403, origin);
        assert.equal(withToken.headers.get('content-type'), 'application/problem+json; charset=utf-8');
        assert.deepEqual(
          withToken.body,
          problem(403, 'Forbidden', 'forbidden', 'Requests from this origin are not accepted.'),
        );
        assert.equal(withToken.headers.get('access-control-allow-origin'), null, origin);
        const withoutToken = await postMcp(mcp, toolsList(), { headers: { origin } });
        assert.equal(withoutToken.status, 403, 'Origin is checked before the token');
        assert.equal(withoutToken.headers.get('www-authenticate'), null);
      }
    });

    it('accepts an origin from MCP_ALLOWED_ORIGINS, echoes it and exposes the MCP headers', async () => {
      const reply = await postMcp(mcp, toolsList(), { token: readToken, headers: { origin: allowedOrigin } });
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('access-control-allow-origin'), allowedOrigin);
      assert.equal(
        reply.headers.get('access-control-expose-headers'),
        'WWW-Authenticate, Retry-After, Mcp-Session-Id, Mcp-Protocol-Version',
      );
      assert.deepEqual(
        (reply.body as { result: { tools: Array<{ name: string }> } }).result.tools.map((x) => x.name),
        readTools,
      );
      // A browser client of that origin can read the challenge of a 401.
      const unauthenticated = await postMcp(mcp, toolsList(), { headers: { origin: allowedOrigin } });
      assert.equal(unauthenticated.status, 401);
      assert.equal(unauthenticated.headers.get('access-control-allow-origin'), allowedOrigin);
      assert.ok(unauthenticated.headers.get('www-authenticate'));
    });

    it('answers a CORS preflight for an allowed origin and refuses one for a foreign origin', async () => {
      const preflight = await fetch(mcp, {
        method: 'OPTIONS',
        headers: {
          origin: allowedOrigin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
        },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), allowedOrigin);
      assert.equal(preflight.headers.get('access-control-allow-methods'), 'POST');
      assert.equal(
        preflight.headers.get('access-control-allow-headers'),
        'authorization, content-type, mcp-protocol-version',
      );
      assert.equal(preflight.headers.get('access-control-max-age'), '600');
      assert.equal(await preflight.text(), '');

      const bare = await fetch(mcp, {
        method: 'OPTIONS',
        headers: { origin: allowedOrigin, 'access-control-request-method': 'POST' },
      });
      assert.equal(bare.status, 204);
      assert.equal(bare.headers.get('access-control-allow-headers'), 'Authorization, Content-Type');

      const foreign = await fetch(mcp, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.headers.get('access-control-allow-origin'), null);
      assert.equal(foreign.headers.get('access-control-allow-methods'), null);
    });
    // MCP (Streamable HTTP, 2025-11-25): servers MUST validate Origin on all incoming connections
    // and answer 403 when it is present and invalid — for methods the endpoint refuses, too.
    it('refuses GET and DELETE from a foreign Origin with 403 as well', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(mcp, {
          method,
          headers: { origin: 'https://evil.example', authorization: `Bearer ${readToken}` },
        });
        assert.equal(response.status, 403, method);
      }
    });
  });

  describe('bearer token', () => {
    it('answers 401 without a token, with a challenge naming the resource metadata', async () => {
      const reply = await postMcp(mcp, toolsList());
      assert.equal(reply.status, 401);
      const metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
      assert.equal(
        reply.headers.get('www-authenticate'),
        `Bearer resource_metadata="${metadataUrl}", scope="calendar:read calendar:write calendar:rsvp calendar:rooms"`,
      );
      assert.deepEqual(
        reply.body,
        problem(
          401,
          'Unauthorized',
          'unauthenticated',
          'Send an access token for this resource as a Bearer token.',
        ),
      );
      const metadata = (await (await fetch(metadataUrl)).json()) as {
        resource: string;
        authorization_servers: string[];
      };
      assert.equal(metadata.resource, mcp);
      assert.deepEqual(metadata.authorization_servers, [`${base}/api/auth`]);
    });

    it('refuses a token whose audience is /v1', async () => {
      const v1Token = (
        await grantToken(t.ctx, {
          userId: ana.userId,
          workspaceId: ana.workspaceId,
          calendars: [{ calendarId: ana.work, detailLevel: 'full' }],
          resource: 'v1',
        })
      ).token;
      const reply = await postMcp(mcp, toolsList(), { token: v1Token });
      assert.equal(reply.status, 401);
      assert.equal(
        reply.headers.get('www-authenticate'),
        `Bearer error="invalid_token", error_description="The access token is for another resource.", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
      );
      assert.deepEqual(
        reply.body,
        problem(401, 'Unauthorized', 'invalid_token', 'The access token is for another resource.'),
      );
    });
  });

  describe('tools by effective scope', () => {
    const hiddenCall = rpc('tools/call', {
      name: 'search_events',
      arguments: { calendarIds: ['cal_x'], query: 'planning', ...window },
    });

    it('lists no tool and refuses search_events when the effective scopes lack calendar:read', async () => {
      // The grant and token hold calendar:write only; the workspace policy (the default) allows reading only.
      const writeOnly = await tokenFor(ana, [ana.work], ['calendar:write']);
      assert.deepEqual(await listToolsRaw(mcp, writeOnly), []);
      const reply = await postMcp(mcp, { ...hiddenCall, id: 7 }, { token: writeOnly });
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.body, {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32602, message: 'Unknown tool: search_events' },
      });

      // The same over protocol 2026-07-28, through the v2 client.
      const client = new clientV2.Client(
        { name: 'e2e', version: '1' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(
        new clientV2.StreamableHTTPClientTransport(new URL(mcp), {
          authProvider: { token: async () => writeOnly },
        }),
      );
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
        assert.deepEqual((await client.listTools()).tools, []);
        await assert.rejects(
          client.callTool({
            name: 'search_events',
            arguments: { calendarIds: [ana.work], query: 'x', ...window },
          }),
          (e) =>
            e instanceof clientV2.ProtocolError &&
            e.code === -32602 &&
            /Unknown tool: search_events/.test(e.message),
        );
      } finally {
        await client.close();
      }
    });

    it('lists every tool in few tokens (about a token per 4 bytes): room left for the conversation', async () => {
      const all = await tokenFor(
        anaWriters,
        [anaWriters.work],
        ['calendar:read', 'calendar:write', 'calendar:rsvp', 'calendar:rooms'],
      );
      const tools = await listToolsRaw(mcp, all);
      assert.equal(tools.length, readTools.length + 5);
      const tokens = Buffer.byteLength(JSON.stringify({ tools })) / 4;
      assert.ok(tokens < toolListTokens, `tools/list is about ${Math.round(tokens)} tokens`);
      const forModel = tools.map(({ name, description, inputSchema }) => ({
        name,
        description,
        inputSchema,
      }));
      const modelTokens = Buffer.byteLength(JSON.stringify(forModel)) / 4;
      assert.ok(modelTokens < modelToolTokens, `a model is given about ${Math.round(modelTokens)} tokens`);
    });

    it('hides the read tools when the workspace policy stops allowing calendar:read', async () => {
      const userId = await seedUser(t.ctx.db, 'cleo@example.org');
      const workspaceId = await seedWorkspace(t.ctx.db, 'Strict', [[userId, 'owner']]);
      const cleo = await seedAccount(userId, workspaceId);
      const token = await tokenFor(cleo, [cleo.work]);
      assert.deepEqual(
        (await listToolsRaw(mcp, token)).map((x) => x.name),
        readTools,
      );
      await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, allowedScopes: ['calendar:write'] }, 1);
      // The verifier looks a grant up again after at most two seconds.
      t.clock.advance({ seconds: 3 });
      assert.deepEqual(await listToolsRaw(mcp, token), []);
    });

    it('answers an unknown tool with a JSON-RPC error, not a tool result', async () => {
      const reply = await postMcp(
        mcp,
        { jsonrpc: '2.0', id: 'x1', method: 'tools/call', params: { name: 'create_event', arguments: {} } },
        { token: readToken },
      );
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.body, {
        jsonrpc: '2.0',
        id: 'x1',
        error: { code: -32602, message: 'Unknown tool: create_event' },
      });
    });
  });

  describe('per-grant request budget', () => {
    let limited: TestApp;
    after(() => limited?.close());

    it('answers the 4th request of a grant within a minute with 429, Retry-After and rate_limited', async () => {
      limited = await startTestApp({ listen: true, env: { GRANT_REQUESTS_PER_MINUTE: '3' } });
      const url = `${limited.ctx.config.baseUrl}/mcp`;
      const userId = await seedUser(limited.ctx.db, 'ana@example.org');
      const workspaceId = await seedWorkspace(limited.ctx.db, 'Acme', [[userId, 'owner']]);
      const grant = () => grantToken(limited.ctx, { userId, workspaceId, calendars: [] });
      const first = (await grant()).token;
      const second = (await grant()).token;

      for (let i = 1; i <= 3; i++)
        assert.equal((await postMcp(url, toolsList(), { token: first })).status, 200, `#${i}`);
      const refused = await postMcp(url, toolsList(), { token: first });
      assert.equal(refused.status, 429);
      // The test clock stands still: the whole minute is left.
      assert.equal(refused.headers.get('retry-after'), '60');
      assert.equal(refused.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      assert.deepEqual(
        refused.body,
        problem(
          429,
          'Too Many Requests',
          'rate_limited',
          'At most 3 requests per minute for one grant; retry later.',
        ),
      );

      // Another grant has its own budget, which requests refused for their Origin do not use.
      const viaSecond = async (headers: Record<string, string> = {}) =>
        (await postMcp(url, toolsList(), { token: second, headers })).status;
      assert.equal(await viaSecond(), 200);
      for (let i = 0; i < 3; i++) assert.equal(await viaSecond({ origin: 'https://evil.example' }), 403);
      assert.deepEqual([await viaSecond(), await viaSecond(), await viaSecond()], [200, 200, 429]);

      limited.clock.advance({ seconds: 30 });
      const later = await postMcp(url, toolsList(), { token: first });
      assert.equal(later.status, 429);
      assert.equal(later.headers.get('retry-after'), '30');
      limited.clock.advance({ seconds: 30 });
      assert.equal((await postMcp(url, toolsList(), { token: first })).status, 200, 'a new minute');
    });
  });

  describe('methods and bodies', () => {
    for (const method of ['GET', 'DELETE', 'PUT']) {
      it(`answers ${method} /mcp with 405 and Allow`, async () => {
        const response = await fetch(mcp, {
          method,
          headers: { authorization: `Bearer ${readToken}`, accept: acceptBoth },
        });
        assert.equal(response.status, 405);
        assert.equal(response.headers.get('allow'), 'OPTIONS, POST');
        assert.deepEqual(
          (await readMcpReply(response)).body,
          problem(405, 'Method Not Allowed', 'method_not_allowed', `${method} is not allowed here.`),
        );
      });
    }

    it('answers a body that is not JSON with a JSON-RPC parse error, not a 500', async () => {
      for (const body of ['{"jsonrpc": "2.0", "id": 1, "method": ', '']) {
        const reply = await postMcp(mcp, body, { token: readToken });
        assert.equal(reply.status, 400, JSON.stringify(body));
        assert.equal(reply.headers.get('content-type'), 'application/json');
        const message = reply.body as { jsonrpc: string; id: unknown; error: { code: number } };
        assert.equal(message.jsonrpc, '2.0');
        assert.equal(message.id, null);
        assert.equal(message.error.code, -32700);
      }
    });

    it('answers bad tool input with a tool error carrying a stable code', async () => {
      const search = (args: Record<string, unknown>) => callToolRaw(mcp, readToken, 'search_events', args);
      const base = { calendarIds: [ana.work], query: 'planning', ...window };
      assert.deepEqual(toolError(await search({ ...base, attendees: ['x'] })), {
        code: 'invalid_request',
        message: 'Unknown argument "attendees": this tool accepts only the arguments it lists.',
        field: 'attendees',
      });
      assert.deepEqual(toolError(await search({ ...base, calendarIds: Array(21).fill(ana.work) })), {
        code: 'too_many_calendars',
        message: 'At most 20 calendars per call; split them over several calls.',
        field: 'calendarIds',
      });
      assert.equal(toolError(await search({ ...base, limit: 51 })).code, 'invalid_request');
      assert.equal(toolError(await search({ ...base, query: 'x'.repeat(201) })).code, 'invalid_request');
      assert.equal(
        toolError(await search({ ...base, start: '2026-03-01T00:00:00Z', end: '2026-04-01T00:00:01Z' })).code,
        'window_too_long',
      );
      // 744 elapsed hours exactly is allowed.
      structured(await search({ ...base, start: '2026-03-01T00:00:00Z', end: '2026-04-01T00:00:00Z' }));
      assert.equal(toolError(await search({ ...base, start: '2026-03-02T00:00:00' })).code, 'window_invalid');
    });
  });

  describe('canEdit and canRespond follow the effective scopes', () => {
    const ids = () => createEventIds(t.ctx.secretKey);
    const events = async (token: string, account: Account): Promise<Event[]> =>
      structured(await callToolRaw(mcp, token, 'list_events', { calendarIds: [account.work], ...window }))
        .termine as Event[];
    const rights = (event: Event) => ({
      title: event.title,
      canEdit: event.canEdit,
      canRespond: event.canRespond,
      editBlockedReason: event.editBlockedReason,
    });

    it('with calendar:read only: nothing editable (access_denied), no response', async () => {
      const [own, invite] = await events(readToken, ana);
      assert.equal(own?.eventId, ids().eventId(ana.work, 'own'));
      assert.deepEqual(rights(own!), {
        title: 'Own planning',
        canEdit: false,
        canRespond: false,
        editBlockedReason: 'access_denied',
      });
      // A provider reason stays the reason.
      assert.deepEqual(rights(invite!), {
        title: 'Invited planning',
        canEdit: false,
        canRespond: false,
        editBlockedReason: 'not_organizer',
      });
    });

    it('with calendar:write granted but not allowed by the workspace policy: still access_denied', async () => {
      const token = await tokenFor(ana, [ana.work], ['calendar:read', 'calendar:write', 'calendar:rsvp']);
      const [own, invite] = await events(token, ana);
      assert.deepEqual(rights(own!), {
        title: 'Own planning',
        canEdit: false,
        canRespond: false,
        editBlockedReason: 'access_denied',
      });
      assert.equal(invite?.canRespond, false);
    });

    it('with calendar:write allowed by policy and granted: the owned event is editable', async () => {
      const token = await tokenFor(anaWriters, [anaWriters.work], ['calendar:read', 'calendar:write']);
      const [own, invite] = await events(token, anaWriters);
      assert.deepEqual(rights(own!), {
        title: 'Own planning',
        canEdit: true,
        canRespond: false,
        editBlockedReason: undefined,
      });
      assert.ok(!('editBlockedReason' in own!), 'no editBlockedReason when editing is available');
      assert.deepEqual(rights(invite!), {
        title: 'Invited planning',
        canEdit: false,
        canRespond: false,
        editBlockedReason: 'not_organizer',
      });
    });

    it('with calendar:rsvp allowed and granted: the invitation can be answered', async () => {
      const token = await tokenFor(anaWriters, [anaWriters.work], ['calendar:read', 'calendar:rsvp']);
      const [own, invite] = await events(token, anaWriters);
      assert.deepEqual(rights(own!), {
        title: 'Own planning',
        canEdit: false,
        canRespond: false,
        editBlockedReason: 'access_denied',
      });
      assert.deepEqual(rights(invite!), {
        title: 'Invited planning',
        canEdit: false,
        canRespond: true,
        editBlockedReason: 'not_organizer',
      });
    });
  });

  describe('calendars outside the grant', () => {
    const refused = (calendarIds: string[]) => ({
      code: 'calendar_not_permitted',
      message:
        'These calendar ids are unknown to this grant: use the ids list_calendars returns (GET /v1/calendars on REST), not calendar names.',
      calendarIds,
    });

    it('answers an unknown id, another person’s calendar and an unshared own calendar alike', async () => {
      const onlyWork = await tokenFor(ana, [ana.work]);
      const unknown = 'cal_AAAAAAAAAAAAAAAAAAAAAA';
      for (const tool of ['search_events', 'list_events', 'get_availability']) {
        const call = (calendarIds: string[]) =>
          callToolRaw(mcp, onlyWork, tool, {
            calendarIds,
            ...window,
            ...(tool === 'search_events' ? { query: 'planning' } : {}),
          });
        assert.deepEqual(toolError(await call([unknown])), refused([unknown]), tool);
        // A calendar's name passed as its id: told that the id is unknown and where ids come from.
        assert.deepEqual(toolError(await call(['Work'])), refused(['Work']), tool);
        assert.deepEqual(toolError(await call([bob.work])), refused([bob.work]), tool);
        assert.deepEqual(toolError(await call([ana.partial])), refused([ana.partial]), tool);
        // Mixed with a permitted one: the whole call is refused, naming only the others.
        assert.deepEqual(
          toolError(await call([ana.work, bob.work, unknown])),
          refused([bob.work, unknown]),
          tool,
        );
      }
    });
  });

  describe('provider failures give partial results', () => {
    const note = (parts: string) =>
      `Not every calendar could be read completely, so the result may miss events: ${parts}.`;
    const titles = (content: Record<string, unknown>) => (content.termine as Event[]).map((e) => e.title);

    it('search_events: truncated, the text names the calendar, never an error', async () => {
      for (const failing of [ana.broken, ana.crashing]) {
        const result = await callToolRaw(mcp, readToken, 'search_events', {
          calendarIds: [ana.work, failing],
          query: 'planning',
          ...window,
        });
        assert.equal(result.isError, undefined);
        const content = structured(result);
        assert.deepEqual(titles(content), ['Own planning', 'Invited planning']);
        assert.equal(content.matched, 2);
        assert.equal(content.truncated, true);
        assert.equal(result.content.length, 2);
        assert.deepEqual(result.content[1], {
          type: 'text',
          text: note(`${failing} (the calendar service did not answer as expected; try again later)`),
        });
      }
    });

    it('skipped provider items make a calendar incomplete', async () => {
      const result = await callToolRaw(mcp, readToken, 'list_events', {
        calendarIds: [ana.partial],
        ...window,
      });
      const content = structured(result);
      assert.deepEqual(titles(content), ['Kept planning']);
      assert.equal(content.truncated, true);
      assert.deepEqual(result.content[1], {
        type: 'text',
        text: note(`${ana.partial} (some of its events could not be read)`),
      });
    });

    it('get_availability and list_events name every calendar that fell short, in request order', async () => {
      const calendarIds = [ana.partial, ana.work, ana.broken];
      const expected = note(
        `${ana.partial} (some of its events could not be read), ${ana.broken} (the calendar service did not answer as expected; try again later)`,
      );
      const availability = await callToolRaw(mcp, readToken, 'get_availability', { calendarIds, ...window });
      assert.deepEqual(structured(availability), {
        ok: true,
        busy: [
          { start: '2026-03-02T07:00:00Z', end: '2026-03-02T08:00:00Z' },
          { start: '2026-03-02T09:00:00Z', end: '2026-03-02T10:00:00Z' },
          { start: '2026-03-02T13:00:00Z', end: '2026-03-02T14:00:00Z' },
        ],
        truncated: true,
      });
      assert.deepEqual(availability.content[1], { type: 'text', text: expected });
      const listed = await callToolRaw(mcp, readToken, 'list_events', { calendarIds, ...window });
      assert.deepEqual(titles(structured(listed)), ['Kept planning', 'Own planning', 'Invited planning']);
      assert.deepEqual(listed.content[1], { type: 'text', text: expected });
    });
  });
});
