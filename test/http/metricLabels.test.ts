/**
 * `/metrics` labels come from closed sets whatever a caller sends: requests with every method the
 * HTTP parser knows, on paths nobody routes, add no more than a handful of series.
 */
import assert from 'node:assert/strict';
import { METHODS, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { parseExposition } from '../helpers/exposition.ts';

const metricsToken = 'metrics-token-0123456789abcdef0123456789';
/** Every method Node's parser takes, but CONNECT: a tunnel, closed unanswered before any route. */
const anyMethod = METHODS.filter((method) => method !== 'CONNECT');

/** One request with any method, over the wire (inject knows fewer methods than the parser does); its status. */
function send(baseUrl: string, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(`${baseUrl}${path}`, { method }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('/metrics: labels from closed sets', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ listen: true, env: { METRICS_TOKEN: metricsToken } });
  });
  after(() => t?.close());

  async function requestSeries(): Promise<Array<Record<string, string>>> {
    const response = await t.app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${metricsToken}` },
    });
    assert.equal(response.statusCode, 200);
    return parseExposition(response.body)
      .filter((sample) => sample.name === 'http_requests_total')
      .map((sample) => sample.labels);
  }

  it('50 requests with unusual methods on unknown paths add at most a few series', async () => {
    const before = await requestSeries();
    const baseUrl = t.ctx.config.baseUrl;
    for (let i = 0; i < 50; i++) {
      const method = anyMethod[i % anyMethod.length]!;
      // Unknown paths, and known patterns asked with methods they do not take.
      const path = [`/nowhere/${crypto.randomUUID()}?q=${i}`, `/authorize/${crypto.randomUUID()}`][i % 2];
      const status = await send(baseUrl, method, path!);
      assert.ok(status >= 200, `${method}: ${status}`);
    }
    const after = await requestSeries();
    // GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS and `other`, on `unmatched`, by status class.
    assert.ok(after.length - before.length <= 16, JSON.stringify(after.slice(before.length)));
    const methods = new Set(after.map((labels) => labels.method));
    const known = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'other'];
    assert.deepEqual(
      [...methods].filter((method) => !known.includes(method!)),
      [],
    );
    const routes = new Set(after.map((labels) => labels.route));
    for (const route of routes) assert.doesNotMatch(route!, /nowhere|[\da-f]{8}-/);
    for (const labels of after) assert.match(labels.status!, /^[1-5]xx$/);
  });
});
