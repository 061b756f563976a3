/**
 * In one process (SQLite), changes that end a grant's access without revoking it take effect on
 * the very next request, not when the verifier's cache of live grants expires: the clock stands
 * still here, so without being told the cache would keep the grant live.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

describe('grant ends in one process', () => {
  let t: TestApp;
  let admin: PageClient;
  let team: string;
  let ben: string;
  const calendarsWith = async (token: string) =>
    (await t.app.inject({ url: '/v1/calendars', headers: { authorization: `Bearer ${token}` } })).statusCode;

  before(async () => {
    t = await startTestApp();
    const ana = await seedUser(t.ctx.db, 'ana@example.org');
    ben = await seedUser(t.ctx.db, 'ben@example.org');
    team = await seedWorkspace(t.ctx.db, 'Team', [
      [ana, 'owner'],
      [ben, 'member'],
    ]);
    admin = new PageClient(t.app);
    await admin.signIn('ana@example.org', testPassword);
  });
  after(() => t.close());

  const bensToken = async (clientId = 'test-client') =>
    (await grantToken(t.ctx, { userId: ben, workspaceId: team, calendars: [], resource: 'v1', clientId }))
      .token;

  it('an app blocked through the policy form', async () => {
    const blocked = await bensToken('policy-blocked');
    const other = await bensToken('still-allowed');
    for (const token of [blocked, other]) assert.equal(await calendarsWith(token), 200);
    await admin.get(`/admin/workspaces/${team}`);
    const saved = await admin.post(`/admin/workspaces/${team}/policy`, {
      allowedScopes: ['calendar:read'],
      maxDetailLevel: 'full',
      blockedClients: 'policy-blocked',
    });
    assert.equal(saved.statusCode, 303);
    assert.equal(await calendarsWith(blocked), 401);
    assert.equal(await calendarsWith(other), 200);
  });

  it('a member removed', async () => {
    const token = await bensToken();
    assert.equal(await calendarsWith(token), 200);
    await admin.get(`/admin/workspaces/${team}`);
    assert.equal((await admin.post(`/admin/workspaces/${team}/members/${ben}/remove`, {})).statusCode, 303);
    assert.equal(await calendarsWith(token), 401);
  });
});
