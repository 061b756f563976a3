/**
 * The authorization server's requests to addresses clients choose (Client ID Metadata Documents,
 * registered jwks_uri) go only to public addresses: loopback, `localhost`, numeric spellings and
 * names resolving to private addresses are refused before any connection, with the same answer
 * whether something listens there or not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, SignJWT } from 'jose';
import { systemResolve } from '../../src/lib/networkGuard.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type CountingServer, startCountingServer } from '../helpers/countingServer.ts';
import { redirectUri } from '../helpers/oauth.ts';

describe('authorization server: outbound requests', () => {
  let t: TestApp;
  let listener: CountingServer;
  /** A port nothing listens on. */
  let closedPort: number;

  before(async () => {
    listener = await startCountingServer('127.0.0.1');
    const closed = await startCountingServer('127.0.0.1');
    closedPort = closed.port;
    await closed.close();
    t = await startTestApp({
      // The one name the test controls resolves to a private address; every other name as usual.
      outboundGuard: {
        resolve: async (hostname) =>
          hostname === 'internal.example' ? ['10.0.0.1'] : systemResolve(hostname),
      },
    });
  });
  after(async () => {
    await t?.close();
    await listener?.close();
  });

  /** The page the authorization endpoint shows for a Client ID Metadata Document URL. */
  async function authorize(clientId: string): Promise<{ status: number; body: string }> {
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'calendar:read',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWw2JcUPwD-Sg',
      code_challenge_method: 'S256',
    });
    const response = await t.app.inject({ method: 'GET', url: `/api/auth/auth?${query}` });
    return { status: response.statusCode, body: response.body };
  }

  it('refuses Client ID Metadata Documents on private addresses without connecting', async () => {
    const port = listener.port;
    const refusals = new Set<string>();
    for (const host of [
      '127.0.0.1',
      'localhost',
      '2130706433',
      '0x7f.1',
      '[::ffff:127.0.0.1]',
      'internal.example',
    ]) {
      const { status, body } = await authorize(`https://${host}:${port}/client.json`);
      assert.equal(status, 400, host);
      assert.match(body, /Error code: <code>invalid_client<\/code>/, host);
      refusals.add(body);
    }
    // A closed port gets the very same page: nothing tells open from closed.
    refusals.add((await authorize(`https://127.0.0.1:${closedPort}/client.json`)).body);
    assert.equal(refusals.size, 1, 'one answer for every refused address');
    assert.equal(listener.connections, 0, 'nothing connected to the listener');
  });

  /** Registers a client authenticating with keys at `jwksUri`, then asks for a token: the keys are fetched. */
  async function tokenWithKeysAt(app: TestApp, jwksUri: string) {
    const registered = await app.app.inject({
      method: 'POST',
      url: '/api/auth/reg',
      payload: {
        client_name: 'Key Holder',
        redirect_uris: [redirectUri],
        grant_types: ['client_credentials'],
        response_types: [],
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks_uri: jwksUri,
      },
    });
    assert.equal(registered.statusCode, 201, registered.body);
    const { client_id: clientId } = registered.json<{ client_id: string }>();
    const { privateKey } = await generateKeyPair('ES256');
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(`${app.ctx.config.baseUrl}/api/auth`)
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(privateKey);
    const token = await app.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    return { status: token.statusCode, error: token.json<{ error: string }>().error };
  }

  it('refuses a registered jwks_uri on loopback without connecting', async () => {
    const before = listener.connections;
    assert.deepEqual(await tokenWithKeysAt(t, `https://127.0.0.1:${listener.port}/jwks.json`), {
      status: 401,
      error: 'invalid_client',
    });
    assert.equal(listener.connections, before, 'nothing connected to the listener');
  });

  it('fetches nothing over plain http in production, even from an allowed address', async () => {
    const production = await startTestApp({
      env: { APP_ENV: 'production', BASE_URL: 'https://calendar.example', SECRET_KEY: 'ab'.repeat(32) },
      outboundGuard: {
        resolve: async () => ['127.0.0.1'],
        testAllowances: [{ address: '127.0.0.1', port: listener.port }],
      },
    });
    try {
      const before = listener.connections;
      assert.deepEqual(await tokenWithKeysAt(production, `http://keys.example:${listener.port}/jwks.json`), {
        status: 401,
        error: 'invalid_client',
      });
      assert.equal(listener.connections, before, 'nothing connected to the listener');
    } finally {
      await production.close();
    }
  });
});
