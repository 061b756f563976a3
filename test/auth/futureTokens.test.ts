/**
 * A token issued in the future is refused beyond a minute of clock skew: a signing key used on
 * a machine with a wrong clock, or a token minted ahead of time, does not buy extra lifetime.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type GrantSpec, grantToken } from '../helpers/grantToken.ts';
import { mcpToolsList } from '../helpers/mcpRequest.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

describe('tokens from the future', () => {
  let app: TestApp;
  let spec: GrantSpec;
  before(async () => {
    app = await startTestApp({ listen: true });
    const userId = await seedUser(app.ctx.db, 'ana@example.org');
    spec = {
      userId,
      workspaceId: await seedWorkspace(app.ctx.db, 'Acme', [[userId, 'owner']]),
      calendars: [],
    };
  });
  after(() => app.close());

  const status = async (times: Pick<GrantSpec, 'issuedIn' | 'validIn'>) => {
    const { token } = await grantToken(app.ctx, { ...spec, ...times });
    const response = await mcpToolsList(`${app.ctx.config.baseUrl}/mcp`, token);
    if (response.status === 401) {
      assert.match(response.headers.get('www-authenticate')!, /error="invalid_token"/);
      assert.equal(((await response.json()) as { code: string }).code, 'invalid_token');
    }
    return response.status;
  };

  it('accepts iat and nbf within the skew', async () => {
    assert.equal(await status({ issuedIn: 30 }), 200);
    assert.equal(await status({ issuedIn: -30, validIn: -30 }), 200);
  });

  it('refuses iat further in the future', async () => {
    assert.equal(await status({ issuedIn: 600 }), 401);
    assert.equal(await status({ issuedIn: 86_400 }), 401);
  });

  it('refuses nbf further in the future', async () => {
    assert.equal(await status({ validIn: 600 }), 401);
  });
});
