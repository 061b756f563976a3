/**
 * Graph's validation handshake at /hooks/microsoft: the token is echoed only while this instance
 * is creating a subscription, as plain text that no browser sniffs, and bounded; at any other
 * time the service's origin serves nobody's text (404, empty).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerWebhooks } from '../../src/http/webhooks.ts';

describe('/hooks/microsoft: the validation token', () => {
  let app: FastifyInstance;
  let watching = false;
  before(async () => {
    app = Fastify();
    await registerWebhooks(app, {
      notices: {
        google: async () => false,
        microsoft: async () => {},
      },
      upkeep: { watching: async (provider) => provider === 'microsoft' && watching },
    });
    await app.ready();
  });
  after(() => app?.close());

  const validate = (token: string) =>
    app.inject({
      method: 'POST',
      url: `/hooks/microsoft?validationToken=${encodeURIComponent(token)}`,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  const graphToken = 'Validation: Testing client application reachability for subscription Request-Id: 5f2a';

  it('is not echoed while no subscription is being created', async () => {
    watching = false;
    for (const token of [graphToken, '<script>alert(1)</script>', 'x'.repeat(2000)]) {
      const answer = await validate(token);
      assert.equal(answer.statusCode, 404);
      assert.equal(answer.body, '');
    }
  });

  it('is echoed as plain text, not sniffed, while one is; too long or with control characters refused', async () => {
    watching = true;
    try {
      const echoed = await validate(graphToken);
      assert.equal(echoed.statusCode, 200);
      assert.equal(echoed.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(echoed.headers['x-content-type-options'], 'nosniff');
      assert.equal(echoed.body, graphToken);
      assert.equal((await validate('x'.repeat(512))).body, 'x'.repeat(512));
      for (const token of ['x'.repeat(513), 'a\u0000b', 'a\r\nb']) {
        const refused = await validate(token);
        assert.equal(refused.statusCode, 400, JSON.stringify(token.slice(0, 20)));
        assert.equal(refused.body, '');
      }
    } finally {
      watching = false;
    }
  });
});
