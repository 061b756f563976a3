/**
 * The MCP TypeScript SDK's own OAuth client against the service, over real HTTP, with the
 * person's part (sign-in, consent) through the real pages: discovery from the protected
 * resource metadata, Dynamic Client Registration, a Client ID Metadata Document served over
 * HTTPS by the test, PKCE, code exchange bound to `/mcp`, refresh, and the 401 challenge of
 * `/mcp` driving the SDK's transport into the flow.
 */

import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import * as clientV2 from '@modelcontextprotocol/client';
import { auth, refreshAuthorization, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { tokenHash } from '../../src/lib/secrets.ts';
import { findRecord } from '../../src/store/oauthRecords.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TestOAuthProvider } from '../helpers/mcpOAuth.ts';
import { mcpToolsList } from '../helpers/mcpRequest.ts';
import { readToolNames } from '../helpers/mcpSession.ts';
import { consentAction, reachConsent, redirectUri, submit } from '../helpers/oauth.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedCalendars, seedUser, seedWorkspace } from '../helpers/seed.ts';
import { startHttpsServer, type TestHttpsServer, trustingGuard } from '../helpers/tls.ts';

const email = 'ana@example.org';

const clientMetadata = (client_name: string): OAuthClientMetadata => ({
  client_name,
  redirect_uris: [redirectUri],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

/** A fetch for the SDK that notes every request it makes ("METHOD /path"). */
function recordingFetch(): { fetchFn: typeof fetch; seen: string[] } {
  const seen: string[] = [];
  const fetchFn: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    seen.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    return fetch(input, init);
  };
  return { fetchFn, seen };
}

interface PersonResult {
  /** Where the browser was sent back to the client, if it was. */
  callback: URL | undefined;
  /** The consent page, when one was shown. */
  consentPage: string | undefined;
  /** The last page shown, when the browser was not sent back. */
  page: { statusCode: number; body: string } | undefined;
}

describe('the MCP SDK OAuth client against the service', () => {
  let t: TestApp;
  let documents: TestHttpsServer;
  let base: string;
  let mcp: string;
  let work: string;
  /** Client ID Metadata Documents served by the test, by path. */
  const served = new Map<string, unknown>();

  /** The person's part: sign in, choose the Work calendar, Allow; stops at any other page. */
  async function person(url: URL, browser = new PageClient(t.app)): Promise<PersonResult> {
    // reachConsent reads only the attempt's URL; state and verifier stay with the SDK.
    const step = await reachConsent(t, browser, email, { url, state: '', verifier: '' });
    if (step.location) return { callback: step.location, consentPage: undefined, page: undefined };
    const body = step.page.body;
    if (!/<form method="post" action="[^"]+\/consent"/.test(body)) {
      return { callback: undefined, consentPage: undefined, page: step.page };
    }
    const workspace = /name="workspace" value="([^"]+)"/.exec(body)?.[1] ?? '';
    const done = await submit(
      browser,
      consentAction(body),
      { workspace, calendar: [work], [`level_${work}`]: 'full' },
      base,
    );
    return { callback: done.location, consentPage: body, page: done.location ? undefined : done.page };
  }

  /** A provider whose browser step is `person`, keeping what each step showed. */
  function providerFor(name: string, clientMetadataUrl?: string) {
    const steps: PersonResult[] = [];
    const provider = new TestOAuthProvider({
      redirectUrl: redirectUri,
      clientMetadata: clientMetadata(name),
      ...(clientMetadataUrl === undefined ? {} : { clientMetadataUrl }),
      authorize: async (url) => {
        const result = await person(url);
        steps.push(result);
        return result.callback;
      },
    });
    return { provider, steps };
  }

  const storedClient = (clientId: string) =>
    findRecord(t.ctx.db, 'Client', { idHash: tokenHash(clientId) }, Date.now());

  const postMcp = (token: string) => mcpToolsList(mcp, token);

  before(async () => {
    documents = await startHttpsServer((request, response: ServerResponse) => {
      const document = served.get(request.url ?? '');
      if (document === undefined) {
        response.writeHead(404).end();
        return;
      }
      response
        .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' })
        .end(JSON.stringify(document));
    });
    t = await startTestApp({ listen: true, outboundGuard: trustingGuard(documents) });
    base = t.ctx.config.baseUrl;
    mcp = `${base}/mcp`;
    const userId = await seedUser(t.ctx.db, email);
    const workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [[userId, 'owner']]);
    [work] = (await seedCalendars(t.ctx.db, { userId, workspaceId }, [{ name: 'Work' }])) as [string];
  });
  after(async () => {
    await t?.close();
    await documents?.close();
  });

  it('registers with DCR, signs in and consents, exchanges the code, uses /mcp and refreshes (v1 auth())', async () => {
    const { provider, steps } = providerFor('SDK DCR Client');
    const { fetchFn, seen } = recordingFetch();

    assert.equal(await auth(provider, { serverUrl: mcp, fetchFn }), 'REDIRECT');
    // Discovery went through the resource's metadata to the path-inserted AS metadata, then registered.
    assert.deepEqual(seen.slice(0, 3), [
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /.well-known/oauth-authorization-server/api/auth',
      'POST /api/auth/reg',
    ]);
    const [registered] = provider.savedClients;
    assert.ok(registered?.client_id, 'saveClientInformation received a client_id');
    assert.ok(await storedClient(registered.client_id), 'the authorization server stored the client');

    const [authorizationUrl] = provider.authorizationUrls;
    assert.equal(authorizationUrl?.searchParams.get('resource'), mcp);
    assert.equal(authorizationUrl?.searchParams.get('code_challenge_method'), 'S256');
    assert.match(steps[0]?.consentPage ?? '', /SDK DCR Client/);
    const callback = provider.lastCallback;
    assert.equal(callback.error, null);
    assert.ok(callback.code, 'the browser came back with a code');
    assert.ok(callback.stateMatches, 'the state came back unchanged');
    assert.equal(callback.iss, `${base}/api/auth`);

    assert.equal(
      await auth(provider, { serverUrl: mcp, authorizationCode: callback.code, fetchFn }),
      'AUTHORIZED',
    );
    const tokens = provider.tokens();
    assert.ok(tokens);
    const claims = decodeJwt(tokens.access_token);
    assert.equal(claims.aud, mcp);
    assert.equal(claims.client_id, registered.client_id);
    assert.ok(tokens.refresh_token, 'a refresh token was issued');
    assert.equal((await postMcp(tokens.access_token)).status, 200);

    // auth() again with a refresh token in store: the SDK refreshes instead of redirecting.
    assert.equal(await auth(provider, { serverUrl: mcp, fetchFn }), 'AUTHORIZED');
    assert.equal(provider.authorizationUrls.length, 1, 'no second trip to the browser');
    const refreshed = provider.tokens();
    assert.ok(refreshed?.refresh_token);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token, 'the refresh token rotated');
    assert.notEqual(refreshed.access_token, tokens.access_token);
    assert.equal(decodeJwt(refreshed.access_token).aud, mcp);
    assert.equal((await postMcp(refreshed.access_token)).status, 200);

    // The SDK's refreshAuthorization on its own, with the AS metadata it discovered.
    const metadata = provider.discoveryState()?.authorizationServerMetadata;
    assert.ok(metadata);
    const again = await refreshAuthorization(`${base}/api/auth`, {
      metadata,
      clientInformation: registered,
      refreshToken: refreshed.refresh_token,
      resource: new URL(mcp),
    });
    assert.ok(again.refresh_token);
    assert.notEqual(again.refresh_token, refreshed.refresh_token);
    assert.equal(decodeJwt(again.access_token).aud, mcp);
    assert.equal((await postMcp(again.access_token)).status, 200);
  });

  it('uses a Client ID Metadata Document instead of registering', async () => {
    const clientId = `${documents.origin}/client.json`;
    served.set('/client.json', {
      client_id: clientId,
      client_name: 'CIMD Test Assistant',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const { provider, steps } = providerFor('Name Only In Client Metadata', clientId);
    const { fetchFn, seen } = recordingFetch();

    assert.equal(await auth(provider, { serverUrl: mcp, fetchFn }), 'REDIRECT');
    assert.deepEqual(
      provider.savedClients.map((c) => c.client_id),
      [clientId],
      'the client id is the document URL, not a registration',
    );
    assert.equal(provider.authorizationUrls[0]?.searchParams.get('client_id'), clientId);
    assert.ok(
      documents.requests.some((r) => r.method === 'GET' && r.path === '/client.json'),
      'the authorization server fetched the document',
    );
    assert.match(steps[0]?.consentPage ?? '', /CIMD Test Assistant/, 'the consent page names the document');
    const { code, stateMatches } = provider.lastCallback;
    assert.ok(code, `no code: ${steps[0]?.page?.body.slice(0, 300)}`);
    assert.ok(stateMatches);

    assert.equal(await auth(provider, { serverUrl: mcp, authorizationCode: code, fetchFn }), 'AUTHORIZED');
    assert.ok(!seen.some((s) => s.endsWith('/api/auth/reg')), `no registration request: ${seen.join(', ')}`);
    assert.equal(await storedClient(clientId), undefined, 'nothing registered under the document URL');
    const tokens = provider.tokens();
    assert.ok(tokens?.refresh_token);
    const claims = decodeJwt(tokens.access_token);
    assert.equal(claims.aud, mcp);
    assert.equal(claims.client_id, clientId);
    assert.equal((await postMcp(tokens.access_token)).status, 200);
  });

  it('accepts a Client ID Metadata Document that names the scopes it uses', async () => {
    const clientId = `${documents.origin}/scoped-client.json`;
    served.set('/scoped-client.json', {
      client_id: clientId,
      client_name: 'Scoped CIMD Assistant',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'calendar:read offline_access',
    });
    const { provider, steps } = providerFor('Scoped CIMD Assistant', clientId);
    assert.equal(await auth(provider, { serverUrl: mcp }), 'REDIRECT');
    assert.match(steps[0]?.consentPage ?? '', /Scoped CIMD Assistant/, `stayed on: ${steps[0]?.page?.body}`);
    const { code } = provider.lastCallback;
    assert.ok(code);
    assert.equal(await auth(provider, { serverUrl: mcp, authorizationCode: code }), 'AUTHORIZED');
    assert.equal((await postMcp(provider.tokens()!.access_token)).status, 200);
  });

  it('refuses a Client ID Metadata Document whose client_id is not its own URL', async () => {
    const url = `${documents.origin}/impostor.json`;
    served.set('/impostor.json', {
      client_id: `${documents.origin}/someone-else.json`,
      client_name: 'Impostor',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
    });
    const { provider, steps } = providerFor('Impostor', url);

    assert.equal(await auth(provider, { serverUrl: mcp }), 'REDIRECT');
    assert.ok(
      documents.requests.some((r) => r.path === '/impostor.json'),
      'the document was fetched',
    );
    const [step] = steps;
    assert.equal(step?.callback, undefined, 'the browser is not sent to an unverified redirect URI');
    assert.equal(step?.consentPage, undefined, 'no consent page');
    assert.equal(step?.page?.statusCode, 400);
    assert.match(step?.page?.body ?? '', /Error code: <code>invalid_client_metadata<\/code>/);
    assert.match(step?.page?.body ?? '', /client_id does not match/);
    assert.doesNotMatch(step?.page?.body ?? '', /Impostor/);
  });

  it('lets the SDK transport meet the 401 challenge of /mcp, authorize, and come back with a token', async () => {
    const { provider } = providerFor('SDK Transport Client');
    const { fetchFn, seen } = recordingFetch();

    const first = new StreamableHTTPClientTransport(new URL(mcp), { authProvider: provider, fetch: fetchFn });
    await assert.rejects(
      new Client({ name: 'test', version: '0' }).connect(first),
      (e) => e instanceof UnauthorizedError,
    );
    // The unauthenticated POST was answered 401 with resource_metadata, which led the SDK into discovery.
    assert.deepEqual(seen.slice(0, 3), [
      'POST /mcp',
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /.well-known/oauth-authorization-server/api/auth',
    ]);
    assert.equal(provider.authorizationUrls.length, 1, 'redirectToAuthorization was called');
    const { code } = provider.lastCallback;
    assert.ok(code);
    await first.finishAuth(code);
    assert.equal(decodeJwt(provider.tokens()!.access_token).aud, mcp);

    // With the token the SDK connects (initialize handshake) and lists the tools it may use.
    const second = new StreamableHTTPClientTransport(new URL(mcp), {
      authProvider: provider,
      fetch: fetchFn,
    });
    const client = new Client({ name: 'test', version: '0' });
    await client.connect(second);
    assert.deepEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      readToolNames,
    );
    await client.close();
    assert.equal(provider.authorizationUrls.length, 1, 'no new authorization');
  });

  it('also completes with the v2 client package (@modelcontextprotocol/client auth())', async () => {
    const { provider, steps } = providerFor('SDK v2 DCR Client');
    const v2Provider: clientV2.OAuthClientProvider = provider;

    assert.equal(await clientV2.auth(v2Provider, { serverUrl: mcp }), 'REDIRECT');
    const [registered] = provider.savedClients;
    assert.ok(registered?.client_id);
    assert.ok(await storedClient(registered.client_id));
    assert.match(steps[0]?.consentPage ?? '', /SDK v2 DCR Client/);
    const { code, iss, stateMatches } = provider.lastCallback;
    assert.ok(code, `no code: ${steps[0]?.page?.body.slice(0, 300)}`);
    assert.ok(stateMatches);

    // v2 checks the callback's `iss` (RFC 9207) against the discovered issuer before redeeming the code.
    assert.equal(
      await clientV2.auth(v2Provider, { serverUrl: mcp, authorizationCode: code, iss: iss ?? undefined }),
      'AUTHORIZED',
    );
    const tokens = provider.tokens();
    assert.ok(tokens?.refresh_token);
    assert.equal(decodeJwt(tokens.access_token).aud, mcp);
    assert.equal((await postMcp(tokens.access_token)).status, 200);

    assert.equal(await clientV2.auth(v2Provider, { serverUrl: mcp }), 'AUTHORIZED');
    assert.notEqual(provider.tokens()?.refresh_token, tokens.refresh_token, 'refreshed with rotation');
  });
});
