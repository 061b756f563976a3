/**
 * Two service processes on one PostgreSQL, behind one BASE_URL as a load balancer would have
 * them: they agree on their first signing keys; the per-grant budget is one budget; a grant
 * revoked on one is refused by the other within a second; and a key rotated with the CLI signs
 * on one and verifies on the other, shown in its JWKS, without a restart.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { systemClock } from '../../src/lib/clock.ts';
import { createSecretBox } from '../../src/lib/encryption.ts';
import { type DatabaseHandle, migrateToLatest } from '../../src/store/database.ts';
import { freshPostgres, postgresSkip } from '../helpers/databases.ts';
import { freePort } from '../helpers/freePort.ts';
import { grantToken, type SigningContext } from '../helpers/grantToken.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';
import { type ServiceProcess, startService } from '../helpers/serviceProcess.ts';

const skip = await postgresSkip('the tests of several service processes');
const budget = 4;
const root = fileURLToPath(new URL('../..', import.meta.url));

/** Polls `check` until it gives a value; fails after `ms`. */
async function within<T>(ms: number, what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await delay(20);
  }
}

/** A browser without JavaScript over real HTTP: a cookie jar and the last page's CSRF token. */
function browserOn(origin: string) {
  const cookies = new Map<string, string>();
  let csrf = '';
  const send = async (path: string, form?: Record<string, string>) => {
    const response = await fetch(`${origin}${path}`, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams({ _csrf: csrf, ...form }).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    const body = await response.text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? csrf;
    return { status: response.status, location: response.headers.get('location'), body };
  };
  return {
    get: (path: string) => send(path),
    post: (path: string, form: Record<string, string>) => send(path, form),
  };
}

describe('two service processes on one PostgreSQL: budget, revocation, keys', { skip }, () => {
  let database: DatabaseHandle & { url: string };
  let first: ServiceProcess;
  let second: ServiceProcess;
  let ports: [number, number];
  let signing: SigningContext;
  let owner: { userId: string; workspaceId: string };
  const secretKey = randomBytes(32);
  const env = () => ({
    APP_ENV: 'test',
    DATABASE_URL: database.url,
    SECRET_KEY: secretKey.toString('hex'),
  });
  const origin = (port: number) => `http://127.0.0.1:${port}`;
  const baseUrl = () => origin(ports[0]);
  const calendarsOn = (port: number, token: string) =>
    fetch(`${origin(port)}/v1/calendars`, { headers: { authorization: `Bearer ${token}` } });
  const jwksOf = async (port: number) =>
    (
      (await (await fetch(`${origin(port)}/api/auth/jwks`)).json()) as { keys: Array<{ kid: string }> }
    ).keys.map((k) => k.kid);
  const personToken = () => grantToken(signing, { ...owner, calendars: [], resource: 'v1' });

  before(async () => {
    database = await freshPostgres();
    await migrateToLatest(database);
    ports = [await freePort(), await freePort()];
    signing = {
      db: database.db,
      box: createSecretBox(secretKey),
      clock: systemClock,
      config: { environment: 'test', baseUrl: baseUrl() },
    };
    [first, second] = ports.map((port) =>
      startService({
        ...env(),
        LOG_LEVEL: 'warn',
        PORT: String(port),
        // One public address for both, as behind a load balancer.
        BASE_URL: baseUrl(),
        GRANT_REQUESTS_PER_MINUTE: String(budget),
      }),
    ) as [ServiceProcess, ServiceProcess];
    // The person (a password hashed on purpose slowly) while the instances start.
    const userId = await seedUser(database.db, 'ana@example.com');
    owner = { userId, workspaceId: await seedWorkspace(database.db, 'Team', [[userId, 'owner']]) };
    await Promise.all([first.started, second.started]);
  });

  after(async () => {
    await Promise.all([first?.kill(), second?.kill()]);
    await database?.close();
  });

  it('agrees on the signing keys, also when both made a first key at once', async () => {
    await within(1_000, 'both show the same keys', async () => {
      const [one, two] = await Promise.all(ports.map(jwksOf));
      return JSON.stringify(one) === JSON.stringify(two) ? true : undefined;
    });
  });

  it('has one budget per grant: requests alternating between the two are refused after it', async () => {
    // The budget's window is the clock's minute: a run that crosses into the next is run again.
    for (let attempt = 0; ; attempt++) {
      const minute = Math.floor(Date.now() / 60_000);
      const { token } = await personToken();
      const statuses: number[] = [];
      for (let i = 0; i < budget + 2; i++) {
        statuses.push((await calendarsOn(ports[i % 2]!, token)).status);
      }
      if (Math.floor(Date.now() / 60_000) !== minute && attempt === 0) continue;
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
      const refused = await calendarsOn(ports[1], token);
      assert.equal(((await refused.json()) as { code: string }).code, 'rate_limited');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      return;
    }
  });

  it('refuses on the second a grant revoked on the first, within a second', async () => {
    const { token, grantId } = await personToken();
    const browser = browserOn(origin(ports[0]));
    await browser.get('/login');
    assert.equal(
      (await browser.post('/login', { email: 'ana@example.com', password: testPassword })).status,
      303,
    );
    assert.match((await browser.get('/account')).body, new RegExp(`/account/apps/${grantId}/revoke`));
    // The second holds the grant as live in its cache (for two seconds, unless told).
    assert.equal((await calendarsOn(ports[1], token)).status, 200);
    const revoked = await browser.post(`/account/apps/${grantId}/revoke`, {});
    assert.equal(revoked.status, 303);
    await within(1_000, 'the second refuses the revoked grant', async () => {
      const response = await calendarsOn(ports[1], token);
      return response.status === 401 ? response : undefined;
    });
    assert.equal((await calendarsOn(ports[0], token)).status, 401);
  });

  it('rotates the key with the CLI: signed by the first, verified by the second, in its JWKS', async () => {
    const [before] = await jwksOf(ports[1]);
    const { stdout } = await promisify(execFile)(process.execPath, ['src/cli.ts', 'keys', 'rotate'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env(), BASE_URL: baseUrl() },
    });
    const kid = stdout.trim();
    assert.match(kid, /^test-/);
    assert.notEqual(kid, before);

    const jwks = await within(1_000, 'the second shows the new key', async () => {
      const kids = await jwksOf(ports[1]);
      return kids.includes(kid) ? kids : undefined;
    });
    assert.deepEqual(jwks, [kid, before], 'the new key, and the previous one still verifying');

    // The first issues a token (client credentials) signed by the new key.
    const registered = (await (
      await fetch(`${origin(ports[0])}/api/auth/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_basic',
        }),
      })
    ).json()) as { client_id: string; client_secret: string };
    const issued = await within(1_000, 'the first signs with the new key', async () => {
      const response = await fetch(`${origin(ports[0])}/api/auth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          resource: `${baseUrl()}/v1`,
          scope: 'calendar:read',
        }).toString(),
      });
      const { access_token } = (await response.json()) as { access_token: string };
      return decodeProtectedHeader(access_token).kid === kid ? access_token : undefined;
    });
    // Its signature verified by the second: refused only for being a client's, not a person's.
    const answer = await calendarsOn(ports[1], issued);
    assert.equal(answer.status, 403);
    assert.equal(((await answer.json()) as { code: string }).code, 'forbidden');

    // A person's token with the new key is accepted by both; one with an unknown key by neither.
    const { token } = await personToken();
    assert.equal(decodeProtectedHeader(token).kid, kid);
    for (const port of ports) assert.equal((await calendarsOn(port, token)).status, 200);
    const { privateKey } = await generateKeyPair('ES256');
    const unknown = await new SignJWT(decodeJwt(token))
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'test-unknown' })
      .sign(privateKey);
    for (const port of ports) assert.equal((await calendarsOn(port, unknown)).status, 401);
    assert.deepEqual(
      [...first.logs, ...second.logs].filter((line) => Number(line.level) >= 50),
      [],
      'no errors logged',
    );
  });
});
