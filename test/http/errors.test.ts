/** The HTTP surface's error handling and operations endpoints. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { redactUrl } from '../../src/http/logging.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

describe('HTTP errors and operations', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      extraRoutes: (app) =>
        app.get('/v1/boom', async () => {
          throw new Error('database password is hunter2');
        }),
    });
  });
  after(() => t.close());

  it('answers liveness and readiness', async () => {
    const health = await t.app.inject('/healthz');
    assert.equal(health.statusCode, 200);
    assert.deepEqual(health.json(), { status: 'ok' });
    const ready = await t.app.inject('/readyz');
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready' });
  });

  it('says service_unavailable with 503 and Retry-After when the database does not answer', async () => {
    const broken = await startTestApp();
    broken.ctx.ping = async () => {
      throw new Error('connection refused');
    };
    const response = await broken.app.inject('/readyz');
    await broken.close();
    assert.equal(response.statusCode, 503);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(response.json().code, 'service_unavailable');
    assert.ok(Number(response.headers['retry-after']) >= 1);
  });

  it('answers unknown paths with a 404 problem', async () => {
    const response = await t.app.inject('/v1/nothing-here?token=abc');
    assert.equal(response.statusCode, 404);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.deepEqual(response.json(), {
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      code: 'not_found',
      detail: 'There is nothing at this address.',
      instance: '/v1/nothing-here',
    });
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/healthz' });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'GET');
    assert.equal(response.json().code, 'method_not_allowed');
    const page = await t.app.inject({ method: 'PUT', url: '/login' });
    assert.equal(page.statusCode, 405);
    assert.equal(page.headers.allow, 'GET, POST');
  });

  it('shows browsers an HTML page for unknown pages', async () => {
    const response = await t.app.inject({ url: '/no-such-page', headers: { accept: 'text/html' } });
    assert.equal(response.statusCode, 404);
    assert.match(response.headers['content-type'] as string, /^text\/html/);
    assert.match(response.body, /There is nothing at this address\./);
    assert.match(response.body, /<code>not_found<\/code>/);
  });

  it('hides internal failures behind internal_error', async () => {
    const response = await t.app.inject('/v1/boom');
    assert.equal(response.statusCode, 500);
    assert.equal(response.json().code, 'internal_error');
    assert.doesNotMatch(response.body, /hunter2/);
  });

  it('sends security headers and a request id', async () => {
    const response = await t.app.inject('/login');
    assert.match(response.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.match(response.headers['content-security-policy'] as string, /frame-ancestors 'none'/);
    assert.match(response.headers['content-security-policy'] as string, /form-action 'self'/);
  });

  it('maps body limits and bad content to stable codes', async () => {
    const big = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `email=${'a'.repeat(70 * 1024)}`,
    });
    assert.equal(big.statusCode, 413);
    const odd = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/xml' },
      payload: '<x/>',
    });
    assert.equal(odd.statusCode, 415);
    assert.match(odd.body, /unsupported_media_type/);
  });

  it('gives every catalogue code its status', () => {
    assert.equal(new AppError('time_zone_required', 'x').status, 400);
    assert.equal(new AppError('calendar_not_permitted', 'x').status, 403);
    assert.equal(new AppError('rate_limited', 'x').status, 429);
    assert.equal(new AppError('provider_unavailable', 'x').status, 502);
  });
});

describe('logging', () => {
  it('redacts secrets in URLs', () => {
    assert.equal(redactUrl('/setup?token=abc&x=1'), '/setup?token=%5Bredacted%5D&x=1');
    assert.equal(redactUrl('/cb?code=1&state=2'), '/cb?code=%5Bredacted%5D&state=%5Bredacted%5D');
    assert.equal(redactUrl('/plain'), '/plain');
  });

  it('never writes passwords, cookies or tokens to the log', async () => {
    const lines: string[] = [];
    const t = await startTestApp({ env: { LOG_LEVEL: 'trace' }, logLines: lines });
    await t.app.inject({
      method: 'POST',
      url: '/login?token=sekret-token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'session=sekret-cookie' },
      payload: 'email=a%40b.c&password=sekret-password',
    });
    await t.close();
    const log = lines.join('');
    assert.match(log, /\/login\?token=%5Bredacted%5D/, 'the request was logged');
    assert.doesNotMatch(log, /sekret/);
  });
});
