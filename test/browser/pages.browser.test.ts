/** The pages in a real headless Chromium: first-run set-up, sign-in, an admin action, and Sync now. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { issueFirstRunToken } from '../../src/people/onboarding.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { chromiumMissing, launchChromium } from '../helpers/browser.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { memoryProvider, occurrence, seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

const skip = chromiumMissing();

describe('pages in Chromium', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  const calendars = memoryProvider(
    'google',
    new Map([
      [
        'work',
        {
          name: 'Work at the Regional Transport Planning Office',
          occurrences: [
            occurrence({ start: '2026-03-30T10:00:00', timeZone: 'Europe/Berlin', title: 'Budget' }),
          ],
        },
      ],
      ['holidays', { name: 'Public holidays', occurrences: [] }],
    ]),
  );

  before(async () => {
    t = await startTestApp({ providers: { google: calendars } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('sets up the first owner, signs out and in again, and adds a member', async () => {
    const token = await issueFirstRunToken(t.ctx.db, t.clock);
    const page = await browser.newPage();

    await page.goto(`${base}/setup?token=${token}`);
    await page.getByLabel('Name', { exact: true }).fill('Olga Owner');
    await page.getByLabel('Email').fill('olga@example.org');
    await page.getByLabel('Password').fill('a long enough secret');
    await page.getByLabel('Workspace name').fill('Operations');
    await page.getByRole('button', { name: 'Create owner account' }).click();
    await page.waitForURL(`${base}/admin`);
    assert.equal(await page.getByRole('link', { name: 'Operations' }).count(), 1);
    await seedUser(t.ctx.db, 'colleague@example.org', 'Colleague');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/login`);

    await page.getByLabel('Email').fill('olga@example.org');
    await page.getByLabel('Password').fill('wrong password here');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /not right/);

    await page.getByLabel('Password').fill('a long enough secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/account`);
    await page.getByRole('link', { name: 'Profile and password' }).click();
    await page.getByRole('link', { name: 'Manage Operations' }).click();

    await page.getByLabel('Email').fill('colleague@example.org');
    await page.getByLabel('Role', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Add member' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /The member was added/);
    const row = page.getByRole('row', { name: /colleague@example.org/ }).first();
    assert.equal(await row.getByRole('combobox').inputValue(), 'admin');
    if (process.env.SCREENSHOT_DIR)
      await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/admin.png`, fullPage: true });
    await page.close();
  });

  it('shows each calendar’s sync state and syncs one now, at desktop and phone widths', async () => {
    const userId = await seedUser(t.ctx.db, 'sam@example.org', 'Sam');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Planning', [[userId, 'owner']]);
    const [work] = await seedMemoryAccount(t.ctx, { userId, workspaceId }, calendars);
    await grantToken(t.ctx, { userId, workspaceId, calendars: [{ calendarId: work!, detailLevel: 'full' }] });
    const page = await browser.newPage();
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill('sam@example.org');
    await page.getByLabel('Password').fill(testPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/account`);
    const section = page
      .locator('section section')
      .filter({ has: page.getByRole('heading', { name: 'Calendar accounts in Planning' }) });
    const line = (name: string) => section.getByRole('listitem').filter({ hasText: name });
    assert.match((await line('Public holidays').textContent()) ?? '', /Not copied — no app has access/);
    assert.equal(await page.getByRole('button', { name: /^Sync now/ }).count(), 0, 'no copy yet');

    await t.sync.runDue();
    await page.reload();
    assert.match((await line('Work at').textContent()) ?? '', /Synced just now \(1 item\)/);
    t.clock.advance({ minutes: 2 });
    await page
      .getByRole('button', { name: 'Sync now: Work at the Regional Transport Planning Office' })
      .click();
    await page.waitForURL(`${base}/account?notice=synced`);
    assert.match((await page.getByRole('status').textContent()) ?? '', /The calendar was synced/);
    assert.match((await line('Work at').textContent()) ?? '', /Synced just now/);

    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      // Nothing in the section wider than it, and the section itself inside the viewport.
      const overflow = await section.evaluate((el) => ({
        inside: el.scrollWidth - el.clientWidth,
        right: el.getBoundingClientRect().right,
      }));
      if (process.env.SCREENSHOT_DIR)
        await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/sync-${width}.png`, fullPage: true });
      assert.ok(
        overflow.inside <= 0 && overflow.right <= width,
        `overflow at ${width} px: ${JSON.stringify(overflow)}`,
      );
    }
    await page.close();
  });
});
