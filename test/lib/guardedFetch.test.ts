/**
 * The guarded fetch against listeners of the test on loopback and a resolver the test controls:
 * one resolution per connection, the connection made to the address that was checked (a
 * rebinding answer never reached), and refused targets never connected to.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { guardedFetch } from '../../src/lib/guardedFetch.ts';
import { type CountingServer, startCountingServer } from '../helpers/countingServer.ts';

const refused = (error: unknown) => error instanceof AppError && error.code === 'invalid_request';

describe('the guarded fetch', () => {
  let checked: CountingServer;
  let rebound: CountingServer;

  before(async () => {
    checked = await startCountingServer('127.0.0.1');
    // Same port on another loopback address: where a second resolution would lead.
    rebound = await startCountingServer('127.0.0.2', checked.port);
  });
  after(async () => {
    await checked?.close();
    await rebound?.close();
  });

  /** Answers 127.0.0.1 (allowed as if public) the first time, 127.0.0.2 every time after. */
  function rebinding() {
    const asked: string[] = [];
    const resolve = async (hostname: string) => {
      asked.push(hostname);
      return [asked.length === 1 ? '127.0.0.1' : '127.0.0.2'];
    };
    return { asked, resolve };
  }

  it('resolves once and connects to the address it checked, not to a later answer', async () => {
    const { asked, resolve } = rebinding();
    const guarded = guardedFetch({ resolve, testAllowances: [{ address: '127.0.0.1', port: checked.port }] });
    const before = { checked: checked.connections, rebound: rebound.connections };
    const response = await guarded(`http://calendar.example:${checked.port}/feed.ics`);
    assert.equal(await response.text(), 'ok');
    assert.deepEqual(asked, ['calendar.example'], 'one resolution for the connection');
    assert.equal(checked.connections - before.checked, 1, 'the checked address was connected to');
    assert.equal(rebound.connections - before.rebound, 0, 'the rebinding answer was never used');
  });

  it('refuses a name whose answer is private, without connecting', async () => {
    const { resolve } = rebinding();
    const guarded = guardedFetch({ resolve, testAllowances: [{ address: '127.0.0.1', port: checked.port }] });
    await guarded(`http://calendar.example:${checked.port}/`).then((r) => r.text()); // first answer: allowed
    const before = rebound.connections;
    // A new origin, so a new connection: the second answer (127.0.0.2) is checked and refused.
    await assert.rejects(guarded(`http://other.example:${rebound.port}/`), refused);
    assert.equal(rebound.connections, before);
  });

  it('refuses when any address of the answer is private, and allowances are per port', async () => {
    const before = checked.connections;
    const mixed = guardedFetch({ resolve: async () => ['8.8.8.8', '127.0.0.1'] });
    await assert.rejects(mixed(`http://calendar.example:${checked.port}/`), refused);
    const otherPort = guardedFetch({
      resolve: async () => ['127.0.0.1'],
      testAllowances: [{ address: '127.0.0.1', port: checked.port + 1 }],
    });
    await assert.rejects(otherPort(`http://calendar.example:${checked.port}/`), refused);
    assert.equal(checked.connections, before);
  });

  it('refuses loopback in every spelling without connecting', async () => {
    const guarded = guardedFetch();
    const before = checked.connections;
    for (const host of [
      '127.0.0.1',
      '2130706433',
      '0x7f.1',
      '017700000001',
      '[::ffff:127.0.0.1]',
      'localhost',
    ]) {
      await assert.rejects(guarded(`http://${host}:${checked.port}/`), refused, host);
    }
    assert.equal(checked.connections, before);
  });

  it('checks every redirect hop like the first request, an address literal too', async () => {
    const redirector = await startCountingServer('127.0.0.3', 0, `http://127.0.0.1:${checked.port}/`);
    const guarded = guardedFetch({
      resolve: async () => ['127.0.0.3'],
      testAllowances: [{ address: '127.0.0.3', port: redirector.port }],
    });
    const before = checked.connections;
    await assert.rejects(guarded(`http://feeds.example:${redirector.port}/`), refused);
    assert.equal(redirector.connections, 1, 'the allowed first hop was requested');
    assert.equal(checked.connections, before, 'the loopback it redirected to was not');
    await redirector.close();
  });

  it('refuses plain http when asked to, and other schemes always', async () => {
    const guarded = guardedFetch({ httpsOnly: true, resolve: async () => ['8.8.8.8'] });
    await assert.rejects(guarded('http://calendar.example/'), refused);
    await assert.rejects(guardedFetch()('file:///etc/passwd'), refused);
  });
});
