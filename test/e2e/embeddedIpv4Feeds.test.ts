/**
 * A feed whose address is an IPv6 form carrying a private IPv4 address (RFC 2765's translated
 * `::ffff:0:a.b.c.d` among them) is refused on the account page like the IPv4 address itself,
 * before anything connects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountsOf } from '../../src/store/connectedAccounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type CountingServer, startCountingServer } from '../helpers/countingServer.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

describe('ICS feeds at IPv6 addresses carrying a private IPv4 address', () => {
  let t: TestApp;
  let listener: CountingServer;
  let userId: string;
  let workspaceId: string;

  before(async () => {
    listener = await startCountingServer('127.0.0.1');
    // The real adapters, private networks not allowed (the default).
    t = await startTestApp({ adapters: { sleep: async () => {} } });
    userId = await seedUser(t.ctx.db, 'eve@example.org');
    workspaceId = await seedWorkspace(t.ctx.db, 'Home', [[userId, 'owner']]);
  });
  after(async () => {
    await t?.close();
    await listener?.close();
  });

  it('refuses the subscription without connecting', async () => {
    const browser = new PageClient(t.app);
    await browser.signIn('eve@example.org', testPassword);
    await browser.get('/account');
    for (const host of [
      '[::ffff:0:7f00:1]', // translated 127.0.0.1
      '[::ffff:0:127.0.0.1]',
      '[::ffff:7f00:1]', // mapped
      '[::7f00:1]', // compatible
      '[64:ff9b::7f00:1]', // NAT64
      '[2002:7f00:1::1]', // 6to4
      '[2001:0:7f00:1::1]', // Teredo server
      '[2606:4700::5efe:7f00:1]', // ISATAP
    ]) {
      const url = `http://${host}:${listener.port}/feed.ics`;
      const answer = await browser.post(`/account/workspaces/${workspaceId}/connections/ics`, { url });
      assert.equal(answer.statusCode, 400, host);
      assert.match(answer.body, /role="alert">[^<]*private or local network, which is not allowed/, host);
    }
    assert.equal(listener.connections, 0, 'nothing connected to the listener');
    assert.deepEqual(await accountsOf(t.ctx.db, userId), []);
  });
});
