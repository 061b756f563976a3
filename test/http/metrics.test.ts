/**
 * `/metrics`: who may read it (a token, a listener of its own, else 404), and that what happened
 * shows there with the right labels — REST and MCP requests by route pattern, tool calls through a
 * real MCP client, refused tokens, provider requests and syncs of a real ICS feed, tokens, consents
 * and rate-limit refusals — read back through a parser of the text format.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import * as clientV2 from '@modelcontextprotocol/client';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { createMetrics } from '../../src/lib/metrics.ts';
import { workSlots } from '../../src/lib/workSlots.ts';
import { copyEdition, WordCache } from '../../src/store/wordCache.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { parseExposition, type Sample, sampleValue } from '../helpers/exposition.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { consentingProvider } from '../helpers/mcpSession.ts';
import {
  authorizationUrl,
  consentAction,
  discover,
  reachConsent,
  registerClient,
  submit,
} from '../helpers/oauth.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { restRequest } from '../helpers/restClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const metricsToken = 'metrics-token-0123456789abcdef0123456789';

async function scrape(t: TestApp): Promise<Sample[]> {
  const response = await t.app.inject({
    url: '/metrics',
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parseExposition(response.body);
}

describe('/metrics: who may read it', () => {
  it('is 404 with neither METRICS_TOKEN nor METRICS_LISTEN, a token or not', async () => {
    const t = await startTestApp();
    try {
      for (const headers of [{}, { authorization: `Bearer ${metricsToken}` }]) {
        const response = await t.app.inject({ url: '/metrics', headers });
        assert.equal(response.statusCode, 404);
        assert.equal(response.json().code, 'not_found');
      }
      assert.equal(t.metricsServer, undefined);
    } finally {
      await t.close();
    }
  });

  it('with METRICS_TOKEN: refused without it and with another, served with it, never logged', async () => {
    const logLines: string[] = [];
    const t = await startTestApp({ env: { METRICS_TOKEN: metricsToken, LOG_LEVEL: 'info' }, logLines });
    try {
      const missing = await t.app.inject({ url: '/metrics' });
      assert.equal(missing.statusCode, 401);
      assert.equal(missing.json().code, 'unauthenticated');
      assert.match(String(missing.headers['www-authenticate']), /^Bearer /);
      for (const wrong of [`${metricsToken}x`, metricsToken.slice(0, -1), 'short']) {
        const refused = await t.app.inject({
          url: '/metrics',
          headers: { authorization: `Bearer ${wrong}` },
        });
        assert.equal(refused.statusCode, 401);
        assert.equal(refused.json().code, 'invalid_token');
        assert.doesNotMatch(refused.body, /process_cpu/);
      }
      const basic = await t.app.inject({
        url: '/metrics',
        headers: { authorization: `Basic ${Buffer.from(`x:${metricsToken}`).toString('base64')}` },
      });
      assert.equal(basic.statusCode, 401);
      const samples = await scrape(t);
      // The process collectors are on the application's own registry.
      assert.ok(sampleValue(samples, 'process_cpu_user_seconds_total') > 0);
      assert.ok(sampleValue(samples, 'nodejs_heap_size_used_bytes') > 0);
      assert.equal(sampleValue(samples, 'http_requests_total', { route: '/metrics', status: '4xx' }), 5);
      assert.ok(logLines.some((line) => line.includes('/metrics')));
      assert.ok(!logLines.some((line) => line.includes(metricsToken.slice(0, 20))));
    } finally {
      await t.close();
    }
  });

  it('with METRICS_LISTEN: served on that address only; the main port has no /metrics', async () => {
    const t = await startTestApp({ env: { METRICS_LISTEN: '127.0.0.1:0' }, listen: true });
    try {
      assert.ok(t.metricsServer);
      const address = await t.metricsServer.listen({ host: '127.0.0.1', port: 0 });
      await fetch(`${t.ctx.config.baseUrl}/healthz`);
      const response = await fetch(`${address}/metrics`);
      assert.equal(response.status, 200);
      const samples = parseExposition(await response.text());
      assert.equal(
        sampleValue(samples, 'http_requests_total', { method: 'GET', route: '/healthz', status: '2xx' }),
        1,
      );
      // The listener serves nothing else, and the main port no metrics.
      assert.equal((await fetch(`${address}/healthz`)).status, 404);
      assert.equal((await fetch(`${t.ctx.config.baseUrl}/metrics`)).status, 404);
    } finally {
      await t.close();
    }
    // Closing the application closes its metrics listener.
    assert.equal(t.metricsServer.server.listening, false);
  });

  it('with both: the listener asks for the token too', async () => {
    const t = await startTestApp({ env: { METRICS_LISTEN: '127.0.0.1:0', METRICS_TOKEN: metricsToken } });
    try {
      const address = await t.metricsServer!.listen({ host: '127.0.0.1', port: 0 });
      assert.equal((await fetch(`${address}/metrics`)).status, 401);
      const wrong = await fetch(`${address}/metrics`, { headers: { authorization: 'Bearer nope' } });
      assert.equal(wrong.status, 401);
      const right = await fetch(`${address}/metrics`, {
        headers: { authorization: `Bearer ${metricsToken}` },
      });
      assert.equal(right.status, 200);
      assert.equal((await t.app.inject({ url: '/metrics' })).statusCode, 404);
    } finally {
      await t.close();
    }
  });

  it('refuses a short or spaced token and an address that is not host:port', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ APP_ENV: 'test', ...env });
        return [];
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        return error.problems;
      }
    };
    assert.match(problems({ METRICS_TOKEN: 'too-short' })[0] ?? '', /^METRICS_TOKEN must be at least 32/);
    assert.match(problems({ METRICS_TOKEN: `${metricsToken} x` })[0] ?? '', /^METRICS_TOKEN/);
    for (const listen of ['9464', 'localhost', '127.0.0.1:99999', 'http://127.0.0.1:9464'])
      assert.match(problems({ METRICS_LISTEN: listen })[0] ?? '', /^METRICS_LISTEN must be host:port/);
    assert.deepEqual(loadConfig({ APP_ENV: 'test', METRICS_LISTEN: '[::1]:9464' }).metrics.listen, {
      host: '::1',
      port: 9464,
    });
  });
});

/** One event tomorrow (the test clock stands at 2026-03-29). */
const feed = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//test//metrics//EN',
  'X-WR-CALNAME:Team',
  'X-WR-TIMEZONE:Europe/Berlin',
  'BEGIN:VEVENT',
  'UID:standup@example.test',
  'DTSTAMP:20260301T000000Z',
  'DTSTART:20260330T080000Z',
  'DTEND:20260330T083000Z',
  'SUMMARY:Stand-up',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe('/metrics: what happened, with its labels', () => {
  let t: TestApp;
  let feedServer: Server;
  let feedStatus = 200;
  let userId: string;
  let workspaceId: string;
  let calendarId: string;
  const email = 'ana@example.org';

  before(async () => {
    feedServer = createServer((_request, response) => {
      response.writeHead(feedStatus, { 'content-type': 'text/calendar' });
      response.end(feedStatus === 200 ? feed : '');
    });
    await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
    t = await startTestApp({
      listen: true,
      adapters: { maxAttempts: 1 },
      env: { METRICS_TOKEN: metricsToken, ICS_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    userId = await seedUser(t.ctx.db, email);
    workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [[userId, 'owner']]);
    const { port } = feedServer.address() as AddressInfo;
    const { calendars } = await addConnection(
      t.ctx,
      { userId, workspaceId },
      { kind: 'ics', url: `http://127.0.0.1:${port}/team.ics` },
      'Team feed',
    );
    calendarId = calendars[0]!.id;
  });
  after(async () => {
    await t?.close();
    feedServer?.close();
  });

  it('counts REST requests by route pattern and status class, refused tokens among them', async () => {
    const { token } = await grantToken(t.ctx, {
      userId,
      workspaceId,
      calendars: [{ calendarId, detailLevel: 'full' }],
      resource: 'v1',
    });
    const before = await scrape(t);
    const ok = await restRequest(t.app, { url: '/v1/calendars', token });
    assert.equal(ok.status, 200);
    const refused = await restRequest(t.app, { url: '/v1/calendars', token: `${token}x` });
    assert.equal(refused.status, 401);
    const unknown = await restRequest(t.app, { url: `/v1/nothing/${calendarId}` });
    assert.equal(unknown.status, 404);
    const samples = await scrape(t);
    const moved = (labels: Record<string, string>) =>
      sampleValue(samples, 'http_requests_total', labels) -
      sampleValue(before, 'http_requests_total', labels);
    assert.equal(moved({ method: 'GET', route: '/v1/calendars', status: '2xx' }), 1);
    assert.equal(moved({ method: 'GET', route: '/v1/calendars', status: '4xx' }), 1);
    assert.equal(moved({ method: 'GET', route: 'unmatched', status: '4xx' }), 1);
    assert.equal(
      sampleValue(samples, 'http_request_duration_seconds_count', {
        method: 'GET',
        route: '/v1/calendars',
        status: '2xx',
      }),
      1,
    );
    // No raw URL, id or token as a label value.
    const values = samples.flatMap((s) => Object.values(s.labels));
    assert.ok(!values.some((v) => v.includes(calendarId) || v.includes('/v1/nothing')));
    assert.ok(!values.some((v) => v.includes(token.slice(0, 30))));
  });

  it('counts MCP tool calls of a real client by tool and outcome, with the token and consent', async () => {
    const before = await scrape(t);
    const { provider } = consentingProvider(t, {
      email,
      clientName: 'Metrics client',
      choice: { calendars: { [calendarId]: 'full' } },
    });
    const mcp = new URL(`${t.ctx.config.baseUrl}/mcp`);
    await assert.rejects(
      new clientV2.Client({ name: 'metrics', version: '1' }).connect(
        new clientV2.StreamableHTTPClientTransport(mcp, { authProvider: provider }),
      ),
      (e) => e instanceof clientV2.UnauthorizedError,
    );
    await new clientV2.StreamableHTTPClientTransport(mcp, { authProvider: provider }).finishAuth(
      provider.callbacks.at(-1)!.searchParams,
    );
    const client = new clientV2.Client({ name: 'metrics', version: '1' });
    await client.connect(new clientV2.StreamableHTTPClientTransport(mcp, { authProvider: provider }));
    try {
      const listed = await client.callTool({ name: 'list_calendars', arguments: {} });
      assert.notEqual(listed.isError, true);
      const wrong = await client.callTool({
        name: 'list_events',
        arguments: { calendarIds: [calendarId], start: '2026-03-30T00:00:00', end: '2026-03-31T00:00:00Z' },
      });
      assert.equal(wrong.isError, true);
    } finally {
      await client.close();
    }
    const samples = await scrape(t);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(samples, name, labels) - sampleValue(before, name, labels);
    assert.equal(moved('mcp_tool_calls_total', { tool: 'list_calendars', outcome: 'ok' }), 1);
    assert.equal(moved('mcp_tool_calls_total', { tool: 'list_events', outcome: 'window_invalid' }), 1);
    assert.equal(moved('mcp_tool_call_duration_seconds_count', { tool: 'list_calendars' }), 1);
    assert.equal(moved('oauth_consents_total', { outcome: 'given' }), 1);
    assert.equal(moved('oauth_access_tokens_issued_total'), 1);
    assert.equal(moved('http_requests_total', { method: 'POST', route: '/mcp', status: '4xx' }), 1);
    assert.ok(moved('http_requests_total', { method: 'POST', route: '/mcp', status: '2xx' }) >= 3);
  });

  it('counts a denied consent and a revoked grant', async () => {
    const before = await scrape(t);
    const base = t.ctx.config.baseUrl;
    const h = await discover(t);
    const attempt = await authorizationUrl(h, await registerClient(h));
    const browser = new PageClient(t.app);
    const step = await reachConsent(t, browser, email, attempt);
    const deny = consentAction(step.page.body).replace(/\/consent$/, '/deny');
    const denied = await submit(browser, deny, {}, base);
    assert.equal(denied.location?.searchParams.get('error'), 'access_denied');

    const { grantId } = await grantToken(t.ctx, { userId, workspaceId, calendars: [] });
    await browser.get('/account');
    assert.equal((await browser.post(`/account/apps/${grantId}/revoke`, {})).statusCode, 303);
    // Not counted twice: the grant has ended already.
    assert.equal((await browser.post(`/account/apps/${grantId}/revoke`, {})).statusCode, 404);

    const samples = await scrape(t);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(samples, name, labels) - sampleValue(before, name, labels);
    assert.equal(moved('oauth_consents_total', { outcome: 'denied' }), 1);
    assert.equal(moved('oauth_consents_total', { outcome: 'given' }), 0);
    assert.equal(moved('oauth_grants_ended_total'), 1);
  });

  it('counts provider requests and syncs by provider and outcome, and reads the copies at scrape time', async () => {
    await grantToken(t.ctx, { userId, workspaceId, calendars: [{ calendarId, detailLevel: 'full' }] });
    const before = await scrape(t);
    assert.equal(await t.sync.runDue(), 1);
    let samples = await scrape(t);
    const moved = (name: string, labels: Record<string, string>) =>
      sampleValue(samples, name, labels) - sampleValue(before, name, labels);
    assert.equal(moved('provider_requests_total', { provider: 'ics', outcome: 'ok' }), 1);
    assert.equal(moved('calendar_syncs_total', { provider: 'ics', outcome: 'synced' }), 1);
    assert.equal(moved('calendar_sync_duration_seconds_count', { provider: 'ics' }), 1);
    assert.equal(sampleValue(samples, 'calendar_copies'), 1);
    assert.equal(sampleValue(samples, 'calendar_copies_failing'), 0);
    assert.equal(sampleValue(samples, 'calendar_copy_oldest_age_seconds'), 0);

    // The feed fails: the request and the sync count as such, and the copy ages.
    feedStatus = 503;
    t.clock.advance({ hours: 1 });
    assert.equal(await t.sync.runDue(), 1);
    samples = await scrape(t);
    assert.equal(moved('provider_requests_total', { provider: 'ics', outcome: '5xx' }), 1);
    assert.equal(moved('calendar_syncs_total', { provider: 'ics', outcome: 'provider_unavailable' }), 1);
    assert.equal(sampleValue(samples, 'calendar_copies_failing'), 1);
    assert.equal(sampleValue(samples, 'calendar_copy_oldest_age_seconds'), 3600);
    feedStatus = 200;
  });
});

describe('/metrics: reads of the copies waiting for a slot', () => {
  it('are the line as it is at each scrape', async () => {
    const metrics = createMetrics();
    const waiting = async () => {
      const samples = parseExposition(await metrics.exposition());
      assert.ok(samples.some((sample) => sample.name === 'copy_reads_waiting'));
      return sampleValue(samples, 'copy_reads_waiting');
    };
    const slots = workSlots(1);
    metrics.readReadsWaiting(() => slots.waiting);
    let free!: () => void;
    const held = slots.run(() => new Promise<void>((resolve) => (free = resolve)));
    const queued = [slots.run(async () => {}), slots.run(async () => {})];
    assert.equal(await waiting(), 2);
    free();
    await Promise.all([held, ...queued]);
    assert.equal(await waiting(), 0);
  });
});

describe('/metrics: the search cache', () => {
  it("counts each copy's lookups by outcome and shows the bytes held at each scrape", async () => {
    const metrics = createMetrics();
    const cache = new WordCache(1024 * 1024, metrics.searchCacheLookup);
    metrics.readSearchCacheBytes(() => cache.bytes);
    const edition = copyEdition({ copyKey: 1, createdAt: 0, version: 1 });
    const read = { slots: [0], from: 0, until: 0, rows: [] };
    for (let i = 0; i < 3; i++)
      if (cache.lists(edition, [0], 0, 0) === undefined) cache.keep(edition, 'budget', read);
    const samples = parseExposition(await metrics.exposition());
    assert.equal(sampleValue(samples, 'search_cache_lookups_total', { outcome: 'miss' }), 2);
    assert.equal(sampleValue(samples, 'search_cache_lookups_total', { outcome: 'hit' }), 1);
    assert.equal(sampleValue(samples, 'search_cache_bytes'), cache.bytes);
    assert.ok(cache.bytes > 0);
  });
});

describe('/metrics: rate-limit refusals by limiter', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      env: {
        METRICS_TOKEN: metricsToken,
        GRANT_REQUESTS_PER_MINUTE: '1',
        CLIENT_REGISTRATIONS_PER_MINUTE: '1',
      },
    });
  });
  after(() => t?.close());

  it("counts a grant's budget, failed sign-ins and a route's rate apart", async () => {
    const userId = await seedUser(t.ctx.db, 'ben@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [[userId, 'owner']]);
    const { token } = await grantToken(t.ctx, { userId, workspaceId, calendars: [], resource: 'v1' });
    assert.equal((await restRequest(t.app, { url: '/v1/calendars', token })).status, 200);
    assert.equal((await restRequest(t.app, { url: '/v1/calendars', token })).status, 429);

    const browser = new PageClient(t.app);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await browser.signIn('ben@example.org', 'wrong password')).statusCode);
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);

    const register = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/reg',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          redirect_uris: ['http://127.0.0.1:8765/callback'],
          token_endpoint_auth_method: 'none',
        }),
      });
    assert.equal((await register()).statusCode, 201);
    assert.equal((await register()).statusCode, 429);

    const samples = await scrape(t);
    assert.equal(sampleValue(samples, 'rate_limit_refusals_total', { limiter: 'grant' }), 1);
    assert.equal(sampleValue(samples, 'rate_limit_refusals_total', { limiter: 'sign_in' }), 1);
    assert.equal(sampleValue(samples, 'rate_limit_refusals_total', { limiter: 'route' }), 1);
    assert.equal(
      sampleValue(samples, 'http_requests_total', { method: 'POST', route: '/api/auth/reg', status: '4xx' }),
      1,
    );
  });
});
