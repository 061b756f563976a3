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
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { liveGrantsOfUser } from '../../src/store/accessGrants.ts';
import { auditOf } from '../../src/store/audit.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
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
import { radicaleMissing, startRadicale } from '../helpers/radicale.ts';
import { connectRadicale, fillRadicale, vcalendar } from '../helpers/radicaleCalendars.ts';
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
    // Real adapters (CalDAV for Radicale); accounts seeded without a server are never asked.
    t = await startTestApp({ listen: true, adapters: { sleep: async () => {} } });
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

  /** Presses Tab until the focused element is the one named `name` (its label, or a button's text). */
  async function tabTo(name: string): Promise<void> {
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const { document } = globalThis as unknown as {
          document: {
            activeElement: {
              id: string;
              textContent: string | null;
              labels?: Array<{ textContent: string | null }>;
            } | null;
          };
        };
        const element = document.activeElement;
        const label = element?.labels?.[0]?.textContent ?? element?.textContent ?? '';
        return label.trim();
      });
      if (focused === name) return;
    }
    assert.fail(`Tab never reached "${name}"`);
  }

  it('walks from sign-in through consent to Allow with the keyboard alone', async () => {
    const userId = await seedUser(t.ctx.db, 'kay@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Keys', [[userId, 'owner']]);
    await seedCalendars(t.ctx.db, { userId, workspaceId }, [{ name: 'Work' }, { name: 'Family' }]);
    const attempt = await authorizationUrl(h, await registerClient(h));
    await page.goto(attempt.url.href);
    await page.waitForURL((url) => url.origin === base && url.pathname === '/login');
    await tabTo('Email');
    await page.keyboard.type('kay@example.org');
    await tabTo('Password');
    await page.keyboard.type(testPassword);
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.origin === base && url.pathname.startsWith('/authorize/'));
    await tabTo('Work');
    await page.keyboard.press('Space');
    assert.equal(await page.getByLabel('Work', { exact: true }).isChecked(), true);
    await tabTo('Allow');
    await page.keyboard.press('Enter');
    // The client's redirect URI is where the code arrives (the route answering it records it).
    for (let waited = 0; arrivals.length === 0 && waited < 30_000; waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(`${arrivals[0]?.origin}${arrivals[0]?.pathname}`, redirectUri);
    assert.ok(arrivals[0]!.searchParams.get('code'));
  });

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

  /**
   * One authorization through the pages with the person signed in already (else signed in
   * first): the consent page, the calendars ticked at their levels, Allow; then the code is
   * exchanged and the token used. Returns the token.
   */
  async function authorizeAgain(
    client: oauth.Client,
    params: Record<string, string>,
    choose: Record<string, string>,
  ): Promise<string> {
    arrivals = [];
    const attempt = await authorizationUrl(h, client, params);
    await page.goto(attempt.url.href);
    await page.waitForURL((url) => url.origin === base && url.pathname.startsWith('/authorize/'));
    for (const [name, level] of Object.entries(choose)) {
      await page.getByLabel(name, { exact: true }).check();
      await page.getByLabel(`Detail level for ${name}`).selectOption({ label: level });
    }
    await page.getByRole('button', { name: 'Allow' }).click();
    const callback = await callbackUrl();
    assert.ok(callback.searchParams.get('code'), `no code: ${callback.href}`);
    const tokens = await exchangeCode(h, client, attempt, callback);
    assert.equal((await mcpToolsList(`${base}/mcp`, tokens.access_token)).status, 200);
    return tokens.access_token;
  }

  it('consents again with prompt=consent (twice, other calendars, more scopes, a second app): a code and a working token each time, audited', async () => {
    const userId = await seedUser(t.ctx.db, 'dee@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Delta', [[userId, 'owner']]);
    const [work, family] = await seedCalendars(t.ctx.db, { userId, workspaceId }, [
      { name: 'Work' },
      { name: 'Family' },
    ]);
    await savePolicy(
      t.ctx.db,
      workspaceId,
      { ...defaultPolicy, allowedScopes: ['calendar:read', 'calendar:write'] },
      0,
    );
    const client = await registerClient(h, { client_name: 'Again Assistant' });
    await signIn('dee@example.org', await authorizationUrl(h, client));
    await page.getByLabel('Work', { exact: true }).check();
    await page.getByRole('button', { name: 'Allow' }).click();
    await callbackUrl();

    const again = { prompt: 'consent' };
    const tokens = [
      await authorizeAgain(client, again, { Work: 'Full details' }),
      await authorizeAgain(client, again, { Work: 'Full details' }),
      await authorizeAgain(client, again, { Family: 'Busy/free only' }),
      await authorizeAgain(
        client,
        { ...again, scope: 'calendar:read calendar:write' },
        { Work: 'Titles and times' },
      ),
    ];
    const last = decodeJwt(tokens.at(-1)!);
    assert.equal(last.scope, 'calendar:read calendar:write');
    // Each consent took the place of the one before: only the last token still works.
    for (const token of tokens.slice(0, -1))
      assert.equal((await mcpToolsList(`${base}/mcp`, token)).status, 401);
    const [grant] = await liveGrantsOfUser(t.ctx.db, userId);
    assert.deepEqual(grant?.calendars, [{ calendarId: work, detailLevel: 'titles' }]);

    const second = await registerClient(h, { client_name: 'Second Assistant' });
    await authorizeAgain(second, {}, { Family: 'Full details' });
    const secondToken = await authorizeAgain(second, again, {
      Family: 'Busy/free only',
      Work: 'Busy/free only',
    });
    assert.equal(
      (await mcpToolsList(`${base}/mcp`, tokens.at(-1)!)).status,
      200,
      'the first app keeps its access',
    );
    assert.equal((await mcpToolsList(`${base}/mcp`, secondToken)).status, 200);
    const grants = await liveGrantsOfUser(t.ctx.db, userId);
    assert.deepEqual(
      grants.map((g) => [g.clientId, g.calendars.map((c) => c.calendarId).sort()]).sort(),
      [
        [client.client_id, [work]],
        [second.client_id, [family, work].sort()],
      ].sort(),
    );

    const allowed = (await auditOf(t.ctx.db, workspaceId)).filter((a) => a.action === 'grant.created');
    assert.deepEqual(allowed.map((a) => [a.detail.clientName, a.detail.calendars]).reverse(), [
      ['Again Assistant', 1],
      ['Again Assistant', 1],
      ['Again Assistant', 1],
      ['Again Assistant', 1],
      ['Again Assistant', 1],
      ['Second Assistant', 1],
      ['Second Assistant', 2],
    ]);
  });

  /**
   * An authorization that goes straight back to the client, asked with the browser's cookies:
   * where the service sends the browser (not followed: nothing serves the client's redirect URI).
   */
  async function withoutConsent(attempt: AuthorizationAttempt): Promise<URL> {
    const response = await page.request.get(attempt.url.href, { maxRedirects: 0 });
    assert.equal(response.status(), 303);
    const to = new URL(response.headers().location ?? '', base);
    assert.equal(to.origin, redirectOrigin, `sent to ${to.href}, not back to the client`);
    return to;
  }

  it('a calendar connected later: consent is asked again, and Change on the account page gives it to the app’s current token at once, audited', {
    skip: radicaleMissing(),
  }, async (test) => {
    const userId = await seedUser(t.ctx.db, 'eve@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Epsilon', [[userId, 'owner']]);
    const [work] = await seedCalendars(t.ctx.db, { userId, workspaceId }, [{ name: 'Work' }]);
    const client = await registerClient(h, { client_name: 'Later Assistant' });
    const v1 = { resource: h.v1 };
    const first = await authorizationUrl(h, client, v1);
    await signIn('eve@example.org', first);
    await page.getByLabel('Work', { exact: true }).check();
    await page.getByLabel('Detail level for Work').selectOption({ label: 'Full details' });
    await page.getByRole('button', { name: 'Allow' }).click();
    const { access_token: token } = await exchangeCode(h, client, first, await callbackUrl(), h.v1);
    const calendarsSeen = async () => {
      const response = await fetch(`${h.v1}/calendars`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { data: Array<{ id: string; detailLevel: string }> };
      return body.data.map((c) => [c.id, c.detailLevel]);
    };
    assert.deepEqual(await calendarsSeen(), [[work, 'full']]);

    // Authorizing again asks nothing while every calendar was asked about.
    const same = await authorizationUrl(h, client, v1);
    assert.ok((await withoutConsent(same)).searchParams.get('code'));

    // A CalDAV account connected after the consent, its calendar holding a dentist's appointment.
    t.clock.advance({ minutes: 5 });
    const radicale = await startRadicale();
    test.after(() => radicale.stop());
    await fillRadicale(radicale, [
      {
        slug: 'family',
        displayName: 'Family',
        timeZone: 'Europe/Berlin',
        contents: [
          vcalendar([
            'UID:dentist-1',
            'DTSTART;TZID=Europe/Berlin:20260330T100000',
            'DURATION:PT1H',
            'SUMMARY:Dentist',
            'LOCATION:Hauptstraße 5',
            'DESCRIPTION:Bring the referral',
          ]),
        ],
      },
    ]);
    const family = (await connectRadicale(t.ctx, { userId, workspaceId }, radicale)).get('Family')!;
    arrivals = [];
    const later = await authorizationUrl(h, client, v1);
    await page.goto(later.url.href);
    await page.waitForURL((url) => url.origin === base && url.pathname.startsWith('/authorize/'));
    assert.equal(await page.getByLabel('Family', { exact: true }).isChecked(), false);
    assert.deepEqual(arrivals, [], 'the consent page, not a code that leaves Family out');

    await page.goto(`${base}/account`);
    await page.getByRole('link', { name: 'Change what Later Assistant sees in Epsilon' }).click();
    assert.equal(await page.getByLabel('Work', { exact: true }).isChecked(), true);
    assert.equal(await page.getByLabel('Detail level for Work').inputValue(), 'full');
    await page.getByLabel('Detail level for Work').selectOption({ label: 'Busy/free only' });
    await page.getByLabel('Family', { exact: true }).check();
    await page.getByLabel('Detail level for Family').selectOption({ label: 'Titles and times' });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL((url) => url.pathname === '/account');
    assert.match(
      (await page.locator('main').textContent()) ?? '',
      /The app now sees the calendars you chose/,
    );

    assert.deepEqual(
      (await calendarsSeen()).sort(),
      [
        [family, 'titles'],
        [work, 'busy'],
      ].sort(),
    );
    // The same token reads the new calendar at the level chosen: title and place, no description.
    const read = await fetch(
      `${h.v1}/events?calendar_id=${family}&start=2026-03-30T00:00:00Z&end=2026-03-31T00:00:00Z`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    assert.equal(read.status, 200);
    const [dentist, ...others] = ((await read.json()) as { data: Array<Record<string, unknown>> }).data;
    assert.deepEqual(others, []);
    assert.equal(dentist?.title, 'Dentist');
    assert.deepEqual(dentist?.locations, [{ name: 'Hauptstraße 5' }]);
    assert.equal(dentist?.description, undefined);
    const [changed] = (await auditOf(t.ctx.db, workspaceId)).filter((a) => a.action === 'grant.changed');
    assert.equal(changed?.detail.calendars, 2);
    assert.equal(changed?.actorUserId, userId);
    await page.goto(`${base}/admin/workspaces/${workspaceId}`);
    assert.match((await page.locator('#audit').textContent()) ?? '', /Changed what Later Assistant/);

    // Asked about now: the next authorization skips consent again.
    assert.ok((await withoutConsent(await authorizationUrl(h, client, v1))).searchParams.get('code'));
  });

  it('says what each level shares, shows a level once its calendar is ticked (by style, no script), starting at Titles and times, with Allow the primary button', async () => {
    const userId = await seedUser(t.ctx.db, 'fay@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Zeta', [[userId, 'owner']]);
    await seedCalendars(t.ctx.db, { userId, workspaceId }, [
      { name: 'Work' },
      { name: 'Family', access: 'freeBusy' },
    ]);
    await signIn('fay@example.org', await authorizationUrl(h, await registerClient(h)));
    // One script of the site's own, which only redraws the preview: the levels follow their boxes by style.
    assert.deepEqual(
      await page.locator('script').evaluateAll((all) => all.map((e) => e.getAttribute('src'))),
      ['/consent-preview.js'],
    );
    assert.deepEqual(await page.locator('#levels dt, #levels dd').allTextContents(), [
      'Busy/free only',
      'when it is, busy or free, and its status, a title of “Busy” or “Free” only.',
      'Titles and times',
      'when it is, busy or free, and its status, title, locations (such as addresses), working location, your answer to an invitation.',
      'Full details',
      'when it is, busy or free, and its status, title, locations (such as addresses), working location, your answer to an invitation, description, video-call links, links and attachments, categories, keywords, colour, whether it is private, reminders, organiser and guests.',
    ]);
    const level = page.getByLabel('Detail level for Work');
    assert.equal(await level.isVisible(), false);
    assert.equal(await page.getByLabel('Detail level for Family').isVisible(), false);
    await page.getByLabel('Work', { exact: true }).check();
    assert.equal(await level.isVisible(), true);
    assert.equal(await level.inputValue(), 'titles');
    await page.getByLabel('Family', { exact: true }).check();
    // Free/busy at the provider: the most it can show is where it starts.
    assert.equal(await page.getByLabel('Detail level for Family').inputValue(), 'busy');
    await page.getByLabel('Work', { exact: true }).uncheck();
    assert.equal(await level.isVisible(), false);
    // The workspace chooses where levels start, within what each calendar can show.
    await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, defaultDetailLevel: 'full' }, 0);
    await page.reload();
    assert.equal(await level.inputValue(), 'full');
    assert.equal(await page.getByLabel('Detail level for Family').inputValue(), 'busy');

    const look = (name: string) =>
      page.getByRole('button', { name }).evaluate((b) => {
        // Runs in the page, where the DOM's getComputedStyle is (the tests are typed without the DOM).
        const { getComputedStyle } = globalThis as unknown as {
          getComputedStyle(e: unknown): { backgroundColor: string; color: string; fontWeight: string };
        };
        const style = getComputedStyle(b);
        return { background: style.backgroundColor, color: style.color, weight: style.fontWeight };
      });
    const allow = await look('Allow');
    const deny = await look('Deny');
    assert.notDeepEqual(allow, deny);
    assert.equal(allow.color, 'rgb(255, 255, 255)');
    assert.equal(allow.background, 'rgb(31, 58, 95)');
    assert.equal(deny.background, 'rgb(255, 255, 255)');
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
