/** The pages in a real headless Chromium: first-run set-up, sign-in, and an admin action. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { issueFirstRunToken } from '../../src/people/onboarding.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { chromiumMissing, launchChromium } from '../helpers/browser.ts';
import { seedUser } from '../helpers/seed.ts';

const skip = chromiumMissing();

describe('pages in Chromium', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  before(async () => {
    t = await startTestApp();
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
    await page.getByRole('link', { name: 'Manage' }).click();

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
});
