/**
 * `/mcp` reads JSON-RPC only: a body of any other content type (or none named) is refused with
 * 415 `unsupported_media_type`, before or after the token is checked, and never reaches the SDK.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { acceptBoth, readMcpReply } from '../helpers/mcpSession.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('/mcp content types', () => {
  let app: TestApp;
  let url: string;
  let token: string;

  before(async () => {
    app = await startTestApp({ listen: true });
    url = `${app.ctx.config.baseUrl}/mcp`;
    const userId = await seedUser(app.ctx.db, 'ana@example.org');
    const workspaceId = await seedWorkspace(app.ctx.db, 'Acme', [[userId, 'owner']]);
    ({ token } = await grantToken(app.ctx, { userId, workspaceId, calendars: [] }));
  });
  after(() => app.close());

  const post = (headers: Record<string, string>, body: RequestInit['body']) =>
    fetch(url, { method: 'POST', headers: { accept: acceptBoth, ...headers }, body });

  const multipart = new FormData();
  multipart.set('jsonrpc', '2.0');
  const cases: Array<[string, Record<string, string>, RequestInit['body']]> = [
    [
      'a form',
      { 'content-type': 'application/x-www-form-urlencoded' },
      'jsonrpc=2.0&id=1&method=tools%2Flist',
    ],
    ['plain text', { 'content-type': 'text/plain' }, message],
    ['multipart', {}, multipart],
    ['XML', { 'content-type': 'application/xml' }, '<a/>'],
    ['no content type', {}, new Blob([message])],
  ];

  for (const [name, headers, body] of cases) {
    it(`refuses ${name} with 415 unsupported_media_type, with a valid token`, async () => {
      const reply = await readMcpReply(await post({ authorization: `Bearer ${token}`, ...headers }, body));
      assert.equal(reply.status, 415, JSON.stringify(reply.body));
      assert.equal(reply.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      assert.equal((reply.body as { code: string }).code, 'unsupported_media_type');
    });
  }

  it('still serves JSON', async () => {
    const reply = await readMcpReply(
      await post({ authorization: `Bearer ${token}`, 'content-type': 'application/json' }, message),
    );
    assert.equal(reply.status, 200);
  });
});
