/**
 * The authorization flow with the person's part in a real headless Chromium (sign-in, workspace
 * choice, consent, Deny) and the protocol part in an independent client (oauth4webapi): the
 * browser's arrival at the client's redirect URI is intercepted and handed to the client.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { liveGrantsOfUser } from '../../src/store/accessGrants.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { chromiumMissing, launchChromium } from '../helpers/browser.ts';
import { mcpToolsList } from '../helpers/mcpRequest.ts';
import {
  type AuthorizationAttempt,
  authorizationUrl,
  discover,
  exchangeCode,
  type OAuthHarness,
  redirectUri,
  registerClient,
} from '../helpers/oauth.ts';
import { seedCalendars, seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

const skip = chromiumMissing();
const redirectOrigin = new URL(redirectUri).origin;

describe('OAuth authorization in Chromium', { skip }, () => {
  let t: TestApp;
  let h: OAuthHarness;
  let browser: Browser;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  /** Every request the browser made to the client's redirect URI (nothing listens there). */
  let arrivals: URL[];
  /** What the page logged (Chromium reports blocked navigations there). */
  let consoleLines: string[];

  before(async () => {
    t = await startTestApp({ listen: true });
    base = t.ctx.config.baseUrl;
    h = await discover(t);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  beforeEach(async () => {
    context = await browser.newContext();
    arrivals = [];
    consoleLines = [];
    // The client's side of the redirect: answer it here and remember where the browser went.
    await context.route(`${redirectOrigin}/**`, (route) => {
      arrivals.push(new URL(route.request().url()));
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback received' });
    });
    page = await context.newPage();
    page.on('console', (message) => void consoleLines.push(message.text()));
  });
  afterEach(() => context?.close());

  /** The URL the browser was sent to at the client's redirect URI. */
  async function callbackUrl(): Promise<URL> {
    try {
      await page.waitForURL((url) => url.origin === redirectOrigin, { timeout: 30_000 });
    } catch {
      assert.fail(
        `the browser never reached ${redirectUri}; it is at ${page.url()}; console: ${consoleLines.join(' | ')}`,
      );
    }
    assert.equal(arrivals.length, 1);
    const arrival = arrivals[0]!;
    assert.equal(`${arrival.origin}${arrival.pathname}`, redirectUri);
    return arrival;
  }

  async function signIn(email: string, attempt: AuthorizationAttempt) {
    await page.goto(attempt.url.href);
    await page.waitForURL((url) => url.origin === base && url.pathname === '/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(testPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.origin === base && url.pathname.startsWith('/authorize/'));
  }

  it('signs in, consents to one calendar at a chosen level, and the client gets an audience-bound token', async () => {
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [[userId, 'owner']]);
    const [work] = await seedCalendars(t.ctx.db, { userId, workspaceId }, [
      { name: 'Work' },
      { name: 'Family' },
    ]);
    const client = await registerClient(h, { client_name: 'Browser Assistant' });
    const attempt = await authorizationUrl(h, client);

    await signIn('ana@example.org', attempt);
    assert.equal(
      await page.getByRole('heading', { level: 1 }).textContent(),
      'Allow Browser Assistant to use your calendars?',
    );
    const intro = (await page.locator('main p').first().textContent()) ?? '';
    assert.match(intro, /Browser Assistant/);
    assert.match(intro, /will receive access at 127\.0\.0\.1:8765, in the workspace Acme\./);
    assert.equal(await page.getByLabel('Work', { exact: true }).isChecked(), false);
    assert.equal(await page.getByLabel('Family', { exact: true }).isChecked(), false);

    await page.getByLabel('Work', { exact: true }).check();
    await page.getByLabel('Detail level for Work').selectOption({ label: 'Titles and times' });
    if (process.env.SCREENSHOT_DIR)
      await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/consent.png`, fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();

    const callback = await callbackUrl();
    assert.equal(callback.searchParams.get('iss'), h.issuer.href);
    assert.equal(callback.searchParams.get('state'), attempt.state);
    assert.ok(callback.searchParams.get('code'));
    const params = oauth.validateAuthResponse(h.as, client, callback, attempt.state);
    assert.ok(params.get('code'));

    const tokens = await exchangeCode(h, client, attempt, callback, `${base}/mcp`);
    const claims = decodeJwt(tokens.access_token);
    assert.equal(claims.aud, `${base}/mcp`);
    assert.equal(claims.scope, 'calendar:read');
    assert.equal(claims.sub, userId);

    const [grant] = await liveGrantsOfUser(t.ctx.db, userId);
    assert.deepEqual(grant?.calendars, [{ calendarId: work, detailLevel: 'titles' }]);

    const withToken = await mcpToolsList(`${base}/mcp`, tokens.access_token);
    assert.equal(withToken.status, 200);
    const withoutToken = await mcpToolsList(`${base}/mcp`);
    assert.equal(withoutToken.status, 401);
    assert.match(withoutToken.headers.get('www-authenticate') ?? '', /resource_metadata=/);
  });

  it('asks a person with two workspaces to choose one first, and the consent page names the chosen one', async () => {
    const userId = await seedUser(t.ctx.db, 'bo@example.org');
    const first = await seedWorkspace(t.ctx.db, 'Alpha Team', [[userId, 'member']]);
    const second = await seedWorkspace(t.ctx.db, 'Beta Team', [[userId, 'member']]);
    await seedCalendars(t.ctx.db, { userId, workspaceId: first }, [{ name: 'Alpha calendar' }]);
    await seedCalendars(t.ctx.db, { userId, workspaceId: second }, [{ name: 'Beta calendar' }]);
    const client = await registerClient(h);
    const attempt = await authorizationUrl(h, client);

    await signIn('bo@example.org', attempt);
    assert.equal(await page.getByLabel('Alpha Team').isChecked(), true);
    assert.equal(await page.getByLabel('Beta Team').isChecked(), false);
    await page.getByLabel('Beta Team').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL((url) => url.searchParams.get('workspace') === second);

    const intro = (await page.locator('main p').first().textContent()) ?? '';
    assert.match(intro, /in the workspace Beta Team\./);
    assert.equal(await page.getByLabel('Beta calendar', { exact: true }).count(), 1);
    assert.equal(await page.getByLabel('Alpha calendar', { exact: true }).count(), 0);
    assert.deepEqual(arrivals, []);
  });

  it('sends the browser back with access_denied and the original state when the person denies', async () => {
    const userId = await seedUser(t.ctx.db, 'cy@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Gamma', [[userId, 'owner']]);
    await seedCalendars(t.ctx.db, { userId, workspaceId }, [{ name: 'Work' }]);
    const client = await registerClient(h);
    const attempt = await authorizationUrl(h, client);

    await signIn('cy@example.org', attempt);
    await page.getByRole('button', { name: 'Deny' }).click();

    const callback = await callbackUrl();
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    assert.equal(callback.searchParams.get('state'), attempt.state);
    assert.equal(callback.searchParams.get('iss'), h.issuer.href);
    assert.equal(callback.searchParams.get('code'), null);
    assert.throws(
      () => oauth.validateAuthResponse(h.as, client, callback, attempt.state),
      (e: oauth.AuthorizationResponseError) => e.error === 'access_denied',
    );
    assert.deepEqual(await liveGrantsOfUser(t.ctx.db, userId), []);
  });

  it('shows an error page, and sends nothing to the client, for a redirect URI that is not exactly registered', async () => {
    const client = await registerClient(h);
    const attempt = await authorizationUrl(h, client, { redirect_uri: `${redirectUri}/x` });

    const response = await page.goto(attempt.url.href);
    assert.equal(response?.status(), 400);
    assert.equal(new URL(page.url()).origin, base);
    assert.equal(
      await page.getByRole('heading', { level: 1 }).textContent(),
      'This authorization request cannot go on',
    );
    assert.match((await page.locator('main').textContent()) ?? '', /redirect_uri/);
    assert.deepEqual(arrivals, []);
  });
});
