/**
 * Every page of the service in a real headless Chromium at a desktop (1280 px) and a phone
 * (390 px) width: nothing wider than the window, no element cut off at its edges (tables may
 * scroll inside their own box). With SCREENSHOT_DIR set, each page is saved there at both widths.
 * The pages are reached the way people reach them: set-up link, forms, an authorization request.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { issueFirstRunToken } from '../../src/people/onboarding.ts';
import { recordEventWrite } from '../../src/store/eventWrites.ts';
import { findUserByEmailKey } from '../../src/store/users.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { chromiumMissing, launchChromium } from '../helpers/browser.ts';
import { memoryProvider, occurrence, seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import {
  authorizationUrl,
  discover,
  type OAuthHarness,
  redirectUri,
  registerClient,
} from '../helpers/oauth.ts';
import { seedCalendars, seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

const skip = chromiumMissing();
const widths = [1280, 390] as const;
const ownerPassword = 'a long enough secret';

/** The little of the browser's window the check reads (the tests compile without the DOM's types). */
interface Shown {
  tagName: string;
  textContent: string | null;
  parentElement: Shown | null;
  getBoundingClientRect(): { left: number; right: number; width: number; height: number };
}
interface Window {
  innerWidth: number;
  document: {
    documentElement: { scrollWidth: number };
    body: Shown & { querySelectorAll(s: string): Iterable<Shown> };
  };
  getComputedStyle(element: Shown): { overflowX: string };
}

/** What sticks out of the window at this width: the page itself, or elements outside its edges. */
async function overflowAt(page: Page, width: number): Promise<string[]> {
  await page.setViewportSize({ width, height: 900 });
  return page.evaluate(() => {
    const { document, innerWidth, getComputedStyle } = globalThis as unknown as Window;
    const problems: string[] = [];
    const pageWidth = document.documentElement.scrollWidth;
    if (pageWidth > innerWidth) problems.push(`the page is ${pageWidth} px wide`);
    const scrollsInside = (element: Shown): boolean => {
      for (let p = element.parentElement; p !== null && p !== document.body; p = p.parentElement)
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      return false;
    };
    for (const element of document.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || scrollsInside(element)) continue;
      if (box.left < -0.5 || box.right > innerWidth + 0.5) {
        const text = (element.textContent ?? '').trim().slice(0, 40);
        problems.push(
          `<${element.tagName.toLowerCase()}> "${text}" spans ${Math.round(box.left)}–${Math.round(box.right)} px`,
        );
      }
    }
    return problems;
  });
}

/** axe-core's script, run in the page by the DevTools protocol (the pages' CSP allows no script of ours). */
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What axe-core finds serious or critical on the page at this width: rule, impact and where. */
async function accessibilityAt(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const { axe } = globalThis as unknown as {
      axe: {
        run(): Promise<{
          violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>;
        }>;
      };
    };
    return (await axe.run()).violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => String(n.target[0])),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.targets.slice(0, 3).join(', ')}`);
}

/** Checks the page as it is now at both widths (overflow, accessibility) and in dark colours, saving screenshots when asked. */
async function checkPage(page: Page, name: string): Promise<void> {
  const problems: string[] = [];
  for (const width of widths) {
    for (const problem of await overflowAt(page, width)) problems.push(`${width} px: ${problem}`);
    for (const problem of await accessibilityAt(page)) problems.push(`${width} px: ${problem}`);
    if (process.env.SCREENSHOT_DIR)
      await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/${name}-${width}.png`, fullPage: true });
  }
  // The dark colours (the system's setting) are checked too: contrast above all.
  await page.emulateMedia({ colorScheme: 'dark' });
  for (const problem of await accessibilityAt(page)) problems.push(`dark: ${problem}`);
  if (process.env.SCREENSHOT_DIR)
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/${name}-dark.png`, fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(problems, [], `${name} (${page.url()})`);
}

describe('every page at 1280 and 390 px in Chromium', { skip }, () => {
  let t: TestApp;
  let h: OAuthHarness;
  let browser: Browser;
  let base: string;
  /** Olga, the first owner, signed in throughout. */
  let owner: BrowserContext;
  let page: Page;
  let workspaceId: string;
  let invitationLink: string;

  const calendars = memoryProvider(
    'google',
    new Map([
      [
        'work',
        {
          name: 'Work at the Regional Transport Planning Office, Department of Long Calendar Names',
          occurrences: [
            occurrence({ start: '2026-03-30T10:00:00', timeZone: 'Europe/Berlin', title: 'Budget' }),
          ],
        },
      ],
      ['holidays', { name: 'Public holidays', occurrences: [] }],
    ]),
  );

  before(async () => {
    t = await startTestApp({
      listen: true,
      adapters: {},
      providers: { google: calendars },
      // The connect buttons show only when the providers are configured.
      env: {
        GOOGLE_CLIENT_ID: 'google-client',
        GOOGLE_CLIENT_SECRET: 'google-secret',
        MICROSOFT_CLIENT_ID: 'microsoft-client',
        MICROSOFT_CLIENT_SECRET: 'microsoft-secret',
      },
    });
    base = t.ctx.config.baseUrl;
    h = await discover(t);
    browser = await launchChromium();
    owner = await browser.newContext();
    // The client's side of authorization redirects: nothing listens there.
    await owner.route(`${new URL(redirectUri).origin}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback received' }),
    );
    page = await owner.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('checks itself: a page wider than the window fails', async () => {
    const probe = await browser.newPage();
    await probe.goto(`${base}/login`);
    await probe
      .locator('main')
      .evaluate((main) => main.insertAdjacentHTML('beforeend', '<p style="width:2000px">x</p>'));
    const problems = await overflowAt(probe, 390);
    assert.ok(
      problems.some((p) => p.startsWith('the page is')),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => p.startsWith('<p> "x"')),
      problems.join('\n'),
    );
    await probe.close();
  });

  it('checks itself: a field without a label and a button without a name fail axe-core', async () => {
    const probe = await browser.newPage();
    await probe.goto(`${base}/login`);
    await probe
      .locator('main')
      .evaluate((main) => main.insertAdjacentHTML('beforeend', '<input id="nameless"><button></button>'));
    const problems = await accessibilityAt(probe);
    assert.ok(
      problems.some((p) => p.startsWith('critical label: #nameless')),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => p.startsWith('critical button-name')),
      problems.join('\n'),
    );
    await probe.close();
  });

  it('set-up page', async () => {
    const token = await issueFirstRunToken(t.ctx.db, t.clock);
    await page.goto(`${base}/setup?token=${token}`);
    await checkPage(page, 'setup');
    await page.getByLabel('Name', { exact: true }).fill('Olga Owner');
    await page.getByLabel('Email').fill('olga@example.org');
    await page.getByLabel('Password').fill(ownerPassword);
    await page.getByLabel('Workspace name').fill('Operations and Planning');
    await page.getByRole('button', { name: 'Create owner account' }).click();
    await page.waitForURL(`${base}/admin`);
  });

  it('administration: the list of workspaces', async () => {
    await checkPage(page, 'admin-list');
    await page.getByRole('link', { name: 'Operations and Planning' }).click();
    workspaceId = new URL(page.url()).pathname.split('/').at(-1)!;
  });

  it('administration: a member added, invited, given another role; the policy widened; an app registered', async () => {
    await seedUser(t.ctx.db, 'colleague@example.org', 'Colin Colleague');
    await page.getByLabel('Email').fill('colleague@example.org');
    await page.getByRole('button', { name: 'Add member' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /The member was added/);

    await page.getByLabel('Email').fill('a.newcomer.with.a.rather.long.address@example.org');
    await page.getByRole('button', { name: 'Add member' }).click();
    const notice = (await page.getByRole('status').first().textContent()) ?? '';
    invitationLink = /(http:\S+\/invitation\?token=[\w-]+)/.exec(notice)?.[1] ?? '';
    assert.ok(invitationLink, notice);
    await checkPage(page, 'admin-invited');

    await page.getByLabel('Role of colleague@example.org').selectOption('admin');
    await page
      .getByRole('row', { name: /colleague@example.org/ })
      .getByRole('button', { name: 'Change role' })
      .click();
    await page.getByLabel(/Create, change and delete events/).check();
    await page.getByLabel('Maximum detail level').selectOption({ label: 'Titles and times' });
    await page.getByRole('button', { name: 'Save policy' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /The policy was saved/);

    await page.getByLabel('Name', { exact: true }).fill('Planning Office Scheduler');
    await page
      .getByLabel('Redirect URIs (one per line)')
      .fill('https://scheduler.example.org/oauth/callback');
    await page.getByLabel(/Confidential/).check();
    await page.getByRole('button', { name: 'Register app' }).click();
    assert.match((await page.locator('#new-client-secret').textContent()) ?? '', /\S{20,}/);
    await checkPage(page, 'admin-registered');
  });

  it('invitation page', async () => {
    const guest = await browser.newPage();
    await guest.goto(invitationLink);
    assert.match((await guest.locator('main').textContent()) ?? '', /You are invited to join/);
    await checkPage(guest, 'invitation');
    await guest.close();
  });

  it('authorization: workspace choice and consent', async () => {
    const olga = (await findUserByEmailKey(t.ctx.db, 'olga@example.org'))!.id;
    await seedMemoryAccount(t.ctx, { userId: olga, workspaceId }, calendars);
    const other = await seedWorkspace(t.ctx.db, 'Neighbourhood Choir', [[olga, 'member']]);
    await seedCalendars(t.ctx.db, { userId: olga, workspaceId: other }, [{ name: 'Rehearsals' }]);

    // The second app's consent in a browser without JavaScript: Preview is a submit button there.
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    await noScript.addCookies(await owner.cookies());
    await noScript.route(`${new URL(redirectUri).origin}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback received' }),
    );
    for (const name of ['Browser Assistant for Calendars', 'Another Assistant']) {
      const first = name !== 'Another Assistant';
      const tab = first ? page : await noScript.newPage();
      const client = await registerClient(h, { client_name: name });
      const attempt = await authorizationUrl(h, client, {
        scope: 'calendar:read calendar:write calendar:rsvp',
      });
      await tab.goto(attempt.url.href);
      await tab.waitForURL((url) => url.pathname.startsWith('/authorize/'));
      if (first) await checkPage(tab, 'authorize-workspace');
      await tab.getByLabel('Operations and Planning').check();
      await tab.getByRole('button', { name: 'Continue' }).click();
      await tab.waitForURL((url) => url.searchParams.has('workspace'));
      if (first) await checkPage(tab, 'authorize-consent');
      const preview = tab.locator('#preview');
      await tab.getByLabel(/^Work at the Regional/).check();
      const level = tab.getByLabel(/^Detail level for Work at the Regional/);
      if (first) {
        // The page's script redraws the preview as the choice changes: titles first (the policy's most).
        assert.equal(await tab.getByRole('button', { name: 'Preview' }).isVisible(), false);
        await preview.getByText('Budget').waitFor();
        assert.match((await preview.textContent()) ?? '', /Mon 30 Mar\s*08:00–09:00 Budget/);
        await level.selectOption({ label: 'Busy/free only' });
        await preview.getByText('Busy', { exact: true }).waitFor();
        assert.doesNotMatch((await preview.textContent()) ?? '', /Budget/);
        await checkPage(tab, 'authorize-consent-preview');
        await level.selectOption({ label: 'Titles and times' });
        await preview.getByText('Budget').waitFor();
      } else {
        await level.selectOption({ label: 'Busy/free only' });
        await tab.getByRole('button', { name: 'Preview' }).click();
        await tab.waitForURL((url) => url.pathname.endsWith('/preview'));
        assert.match((await preview.textContent()) ?? '', /08:00–09:00 Busy/);
        assert.equal(await level.inputValue(), 'busy', 'the level chosen is kept');
        await level.selectOption({ label: 'Titles and times' });
        await tab.getByRole('button', { name: 'Preview' }).click();
        await preview.getByText('Budget').waitFor();
        // Without script the page cannot run axe-core or the overflow check: the same page with script has.
        if (process.env.SCREENSHOT_DIR)
          await tab.screenshot({
            path: `${process.env.SCREENSHOT_DIR}/authorize-consent-no-script.png`,
            fullPage: true,
          });
      }
      await tab.getByRole('button', { name: 'Allow' }).click();
      await tab.waitForURL((url) => url.href.startsWith(redirectUri));
    }
    await noScript.close();
  });

  it('account page with connections, apps and their changes', async () => {
    const olga = (await findUserByEmailKey(t.ctx.db, 'olga@example.org'))!.id;
    const grant = await t.ctx.db
      .selectFrom('access_grants')
      .select(['id', 'client_id', 'workspace_id'])
      .where('user_id', '=', olga)
      .executeTakeFirstOrThrow();
    await recordEventWrite(t.ctx.db, {
      userId: olga,
      workspaceId: grant.workspace_id,
      grantId: grant.id,
      clientId: grant.client_id,
      calendarId: null,
      eventId: 'evt-1',
      occurrenceId: null,
      action: 'update',
      scope: 'series',
      outcome: 'conflict',
      errorCode: 'conflict',
      at: t.clock.now().epochMilliseconds,
    });
    await t.sync.runDue();
    await page.goto(`${base}/account`);
    assert.match((await page.locator('main').textContent()) ?? '', /Browser Assistant for Calendars/);
    // What people come for first, each time in words with the exact instant in its tooltip.
    const headings = await page.getByRole('heading', { level: 2 }).allTextContents();
    assert.deepEqual(headings.slice(0, 3), ['Your assistants', 'Your calendars', 'Changes made by apps']);
    const lastUsed = page.locator('#assistants time').first();
    assert.match((await lastUsed.textContent()) ?? '', /^(just now|\d+ min ago|today \d\d:\d\d)$/);
    assert.match((await lastUsed.getAttribute('title')) ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d[+-]\d\d:\d\d$/);
    await checkPage(page, 'account');
    await page.getByRole('link', { name: /^Change what Browser Assistant for Calendars sees/ }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/account/apps/'));
    await checkPage(page, 'account-app-change');
  });

  it('profile page, with an error next to its field', async () => {
    await page.goto(`${base}/account`);
    await page.getByRole('link', { name: 'Profile and password' }).click();
    await page.waitForURL(`${base}/account/profile`);
    await checkPage(page, 'profile');
    await page.getByLabel('Current password').fill('not the password at all');
    await page.getByLabel('New password').fill('another long enough secret');
    await page.getByRole('button', { name: 'Change password' }).click();
    const error = page.locator('#currentPassword-error');
    assert.match((await error.textContent()) ?? '', /The current password is not right/);
    assert.equal(await page.getByLabel('Current password').getAttribute('aria-invalid'), 'true');
    await checkPage(page, 'profile-error');
  });

  it('working hours, saved and with a wrong field', async () => {
    await page.goto(`${base}/account`);
    await page.getByRole('link', { name: 'Your working hours' }).click();
    await page.waitForURL((url) => url.pathname === '/account/working-hours');
    await checkPage(page, 'working-hours');
    await page.getByLabel('Time zone (IANA, e.g. Europe/Berlin)').fill('Mars/Olympus');
    await page.getByRole('button', { name: 'Save working hours' }).click();
    await page.locator('#timeZone-error').waitFor();
    await checkPage(page, 'working-hours-error');
  });

  it('administration: the workspace page with apps, blocking, and the audit log', async () => {
    await page.goto(`${base}/admin/workspaces/${workspaceId}`);
    await page.getByRole('button', { name: 'Block this app in the workspace: Another Assistant' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /1 grant to it ended/);
    const audit = (await page.locator('#audit').textContent()) ?? '';
    assert.match(audit, /Blocked Another Assistant/);
    assert.match(audit, /Maximum detail: Full details → Titles and times/);
    assert.match(
      audit,
      /Allowed Browser Assistant for Calendars \S+ to read calendars and events and create, change and delete events: 1 calendar of google in memory \(Google Calendar\)/,
    );
    await checkPage(page, 'admin-workspace');
  });

  it('sign-in page, with a wrong password', async () => {
    const visitor = await browser.newPage();
    await visitor.goto(`${base}/login`);
    await checkPage(visitor, 'sign-in');
    await visitor.getByLabel('Email').fill('olga@example.org');
    await visitor.getByLabel('Password').fill(`${testPassword} but wrong`);
    await visitor.getByRole('button', { name: 'Sign in' }).click();
    await visitor.getByRole('alert').waitFor();
    await checkPage(visitor, 'sign-in-error');
    await visitor.close();
  });

  it('error pages: not found, a used set-up link, a refused authorization request', async () => {
    const notFound = await page.goto(`${base}/admin/workspaces/ws_nothing_here`);
    assert.equal(notFound?.status(), 404);
    await checkPage(page, 'error-not-found');

    const usedLink = await page.goto(`${base}/setup?token=already-used`);
    assert.ok((usedLink?.status() ?? 0) >= 400);
    await checkPage(page, 'error-setup-link');

    const client = await registerClient(h);
    const attempt = await authorizationUrl(h, client, { redirect_uri: `${redirectUri}/not-registered` });
    const refused = await page.goto(attempt.url.href);
    assert.equal(refused?.status(), 400);
    await checkPage(page, 'error-authorization');
  });
});
