/**
 * An independent OAuth client (oauth4webapi) against a listening test app, with the person's part
 * (sign-in, workspace, consent) done through the real pages by a PageClient.
 */
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import type { TestApp } from './app.ts';
import { PageClient } from './pageClient.ts';
import { testPassword } from './seed.ts';

export const insecure = { [oauth.allowInsecureRequests]: true } as const;
export const redirectUri = 'http://127.0.0.1:8765/callback';

export interface OAuthHarness {
  as: oauth.AuthorizationServer;
  issuer: URL;
  mcp: string;
  v1: string;
}

/** RFC 8414 discovery through the path-inserted well-known URL. */
export async function discover(t: TestApp): Promise<OAuthHarness> {
  const issuer = new URL(`${t.ctx.config.baseUrl}/api/auth`);
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure });
  assert.equal(new URL(response.url).pathname, '/.well-known/oauth-authorization-server/api/auth');
  const as = await oauth.processDiscoveryResponse(issuer, response);
  return { as, issuer, mcp: `${t.ctx.config.baseUrl}/mcp`, v1: `${t.ctx.config.baseUrl}/v1` };
}

/** Dynamic client registration of a public client. */
export async function registerClient(
  h: OAuthHarness,
  metadata: Partial<oauth.OmitSymbolProperties<oauth.Client>> = {},
): Promise<oauth.Client> {
  const response = await oauth.dynamicClientRegistrationRequest(
    h.as,
    {
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      client_name: 'Test Assistant',
      ...metadata,
    },
    insecure,
  );
  return oauth.processDynamicClientRegistrationResponse(response);
}

export interface AuthorizationAttempt {
  state: string;
  verifier: string;
  url: URL;
}

export async function authorizationUrl(
  h: OAuthHarness,
  client: oauth.Client,
  params: Record<string, string> = {},
): Promise<AuthorizationAttempt> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(h.as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'calendar:read',
    resource: h.mcp,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...params,
  }).toString();
  return { state, verifier, url };
}

const local = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

/**
 * Follows redirects inside the service until it sends the browser elsewhere (the client's
 * redirect URI) or shows a page; returns that last response's location or body.
 */
export async function follow(browser: PageClient, start: string, base: string) {
  let url = start.startsWith(base) ? local(start) : start;
  for (let hops = 0; hops < 10; hops++) {
    const response = await browser.get(url);
    const location = response.headers.location;
    if (response.statusCode < 300 || response.statusCode >= 400 || typeof location !== 'string') {
      return { page: response, location: undefined };
    }
    const next = new URL(location, base);
    if (next.origin !== new URL(base).origin) return { page: response, location: next };
    url = local(next.href);
  }
  throw new Error('too many redirects');
}

/** Posts a form and follows where it leads. */
export async function submit(
  browser: PageClient,
  action: string,
  form: Record<string, string | string[]>,
  base: string,
) {
  const response = await browser.post(action, form);
  const location = response.headers.location;
  if (typeof location !== 'string') return { page: response, location: undefined };
  const next = new URL(location, base);
  if (next.origin !== new URL(base).origin) return { page: response, location: next };
  return follow(browser, next.href, base);
}

/** Signs in (if needed) and arrives at the consent page; returns the consent form's action. */
export async function reachConsent(
  t: TestApp,
  browser: PageClient,
  email: string,
  attempt: AuthorizationAttempt,
) {
  const base = t.ctx.config.baseUrl;
  let step = await follow(browser, attempt.url.href, base);
  if (step.page.body.includes('action="/login"')) {
    const next = /name="next" value="([^"]*)"/.exec(step.page.body)![1]!.replaceAll('&amp;', '&');
    step = await submit(browser, '/login', { email, password: testPassword, next }, base);
  }
  return step;
}

export const consentAction = (body: string): string =>
  /<form method="post" action="([^"]+\/consent)"/.exec(body)![1]!;

/** The full person's part: sign in, choose the calendars, Allow; returns the callback URL. */
export async function consent(
  t: TestApp,
  email: string,
  attempt: AuthorizationAttempt,
  choice: Record<string, string | string[]>,
  browser = new PageClient(t.app),
): Promise<URL> {
  const base = t.ctx.config.baseUrl;
  const step = await reachConsent(t, browser, email, attempt);
  if (step.location) return step.location;
  const workspace = /name="workspace" value="([^"]+)"/.exec(step.page.body)?.[1] ?? '';
  const done = await submit(browser, consentAction(step.page.body), { workspace, ...choice }, base);
  assert.ok(
    done.location,
    `consent did not redirect: ${done.page.statusCode} ${done.page.body.slice(0, 500)}`,
  );
  return done.location;
}

export async function exchangeCode(
  h: OAuthHarness,
  client: oauth.Client,
  attempt: AuthorizationAttempt,
  callback: URL,
  resource = h.mcp,
): Promise<oauth.TokenEndpointResponse> {
  const params = oauth.validateAuthResponse(h.as, client, callback, attempt.state);
  const response = await oauth.authorizationCodeGrantRequest(
    h.as,
    client,
    oauth.None(),
    params,
    redirectUri,
    attempt.verifier,
    { additionalParameters: { resource }, ...insecure },
  );
  return oauth.processAuthorizationCodeResponse(h.as, client, response);
}
