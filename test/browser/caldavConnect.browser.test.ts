/**
 * Connecting a real Radicale through the account page in Chromium with a login that is not an
 * e-mail address: a refused form comes back with what was typed (never the password) and the
 * error at its field, in view; the account then invites guests and answers invitations as the
 * address the page names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { calendarsOfAccount } from '../../src/store/connectedAccounts.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { chromiumMissing, launchChromium } from '../helpers/browser.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { callToolRaw, structured } from '../helpers/mcpSession.ts';
import { type RadicaleServer, radicaleMissing, startRadicale } from '../helpers/radicale.ts';
import { fillRadicale, vcalendar } from '../helpers/radicaleCalendars.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

const skip = chromiumMissing() ?? radicaleMissing();
const given = 'j.doe@corp.example';

/** Whether the element is wholly inside the window as the page is scrolled now. */
const inView = (locator: Locator) =>
  locator.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= (el.ownerDocument.defaultView?.innerHeight ?? 0);
  });

describe('connecting CalDAV on the account page in Chromium', { skip }, () => {
  let t: TestApp;
  let radicale: RadicaleServer;
  let browser: Browser;
  let base: string;
  let userId: string;
  let workspaceId: string;

  before(async () => {
    radicale = await startRadicale({ users: { jdoe: 'jdoe-password' } });
    await fillRadicale(radicale, [
      {
        slug: 'work',
        displayName: 'Work',
        timeZone: 'Europe/Berlin',
        contents: [
          vcalendar([
            'UID:review',
            'DTSTART;TZID=Europe/Berlin:20260325T140000',
            'DTEND;TZID=Europe/Berlin:20260325T150000',
            'SUMMARY:Design review',
            'ORGANIZER:mailto:boss@example.org',
            `ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:${given}`,
          ]),
        ],
      },
    ]);
    const http = new ProviderHttp({ sleep: async () => {} });
    t = await startTestApp({ listen: true, providers: { caldav: createCaldavProvider({ http }) } });
    base = t.ctx.config.baseUrl;
    userId = await seedUser(t.ctx.db, 'jdoe@example.org', 'J. Doe');
    workspaceId = await seedWorkspace(t.ctx.db, 'Office', [[userId, 'owner']]);
    const scopes = ['calendar:read', 'calendar:write', 'calendar:rsvp'] as const;
    await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, allowedScopes: [...scopes] }, 0);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await radicale?.stop();
  });

  const signIn = async (page: Page) => {
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill('jdoe@example.org');
    await page.getByLabel('Password').fill(testPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/account`);
  };

  it('keeps what was typed after an error, shows the error at its field in view, then connects', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page);
    await page.getByText('Connect a CalDAV account').click();
    const serverUrl = page.getByLabel('Server URL');
    const username = page.getByLabel('User name');
    const password = page.getByLabel('App password', { exact: true });
    const address = page.getByLabel('Your address in calendars (optional)');
    assert.equal(await address.getAttribute('placeholder'), 'jdoe@example.org');
    await serverUrl.fill(radicale.url);
    await username.fill('jdoe');
    await password.fill('not the password');
    await address.fill(given);
    await page.getByRole('button', { name: 'Connect CalDAV' }).click();
    await page.waitForLoadState();

    const alerts = page.getByRole('alert');
    assert.equal(await alerts.count(), 1, 'one error, not another at the top of the page');
    assert.match((await alerts.textContent()) ?? '', /did not accept this username and password/);
    assert.equal(await password.getAttribute('aria-invalid'), 'true');
    assert.equal(await password.getAttribute('aria-describedby'), await alerts.getAttribute('id'));
    assert.ok(
      await alerts.evaluate((el) => el.previousElementSibling?.getAttribute('name') === 'password'),
      'the error follows the password field',
    );
    assert.ok(await inView(alerts), 'the error is on screen without scrolling');
    if (process.env.SCREENSHOT_DIR)
      await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/caldav-connect-error.png` });
    assert.ok(await password.evaluate((el) => el === el.ownerDocument.activeElement), 'the field is focused');
    assert.deepEqual(
      [await serverUrl.inputValue(), await username.inputValue(), await address.inputValue()],
      [radicale.url, 'jdoe', given],
    );
    assert.equal(await password.inputValue(), '', 'the password is never sent back');
    await page.setViewportSize({ width: 390, height: 800 });
    const form = page.locator('form').filter({ has: password });
    assert.ok(
      await form.evaluate(
        (el) => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().right <= 390,
      ),
      'the open form fits a phone',
    );
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.ok(!(await page.content()).includes('not the password'));

    await password.fill('jdoe-password');
    await page.getByRole('button', { name: 'Connect CalDAV' }).click();
    await page.waitForURL(`${base}/account?notice=connected`);
    const row = page.getByRole('row', { name: /jdoe on 127\.0\.0\.1/ });
    if (process.env.SCREENSHOT_DIR)
      await row.screenshot({ path: `${process.env.SCREENSHOT_DIR}/caldav-connected.png` });
    assert.match(
      (await row.textContent()) ?? '',
      new RegExp(`Invites and answers as ${given.replaceAll('.', '\\.')} \\(as given when connecting\\)`),
    );
    await page.close();
  });

  it('invites guests, edits its own events and answers invitations as that address', async () => {
    const [account] = await t.ctx.db.selectFrom('connected_accounts').select('id').execute();
    const [work] = await calendarsOfAccount(t.ctx.db, account!.id);
    const { token } = await grantToken(t.ctx, {
      userId,
      workspaceId,
      calendars: [{ calendarId: work!.id, detailLevel: 'full' }],
      scopes: ['calendar:read', 'calendar:write', 'calendar:rsvp'],
    });
    const mcp = `${base}/mcp`;
    const call = async (tool: string, args: Record<string, unknown>) =>
      structured(await callToolRaw(mcp, token, tool, args));
    await call('create_event', {
      calendarId: work!.id,
      title: 'Kick-off',
      start: '2026-03-30T10:00:00',
      end: '2026-03-30T11:00:00',
      timeZone: 'Europe/Berlin',
      attendees: [{ email: 'ann@example.org' }],
    });
    const window = { start: '2026-03-23T00:00:00+01:00', end: '2026-04-06T00:00:00+02:00' };
    const listed = (await call('list_events', { calendarIds: [work!.id], ...window })).termine as Array<{
      eventId: string;
      title: string;
      canEdit: boolean;
      canRespond: boolean;
    }>;
    const kickOff = listed.find((e) => e.title === 'Kick-off')!;
    const review = listed.find((e) => e.title === 'Design review')!;
    assert.equal(kickOff.canEdit, true);
    assert.equal(review.canRespond, true);
    const answered = await call('respond_to_event', { eventId: review.eventId, response: 'accepted' });
    assert.equal((answered.event as { responseStatus: string }).responseStatus, 'accepted');
  });
});
