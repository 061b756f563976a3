/**
 * A CalDAV server that always has more: every sync-collection answer is truncated (507 on the
 * calendar, RFC 6578) with a new token and nothing in it. The sync stops after the rounds one
 * sync may make, with `too_large`, instead of asking forever.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, describe, it } from 'node:test';
import { syncLimits } from '../../src/domain/budget.ts';
import { createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import type { AccountAccess, CredentialsOf } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { rejectsWith } from '../helpers/appErrors.ts';
import { type LoopbackServer, startHttpServer } from '../helpers/hostileServers.ts';

const multistatus = (inner: string) =>
  `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:">${inner}</d:multistatus>`;

describe('CalDAV sync with a server that always has more', () => {
  let server: LoopbackServer | undefined;
  after(() => server?.close());

  it('stops after the rounds one sync may make, with too_large', async () => {
    let rounds = 0;
    server = await startHttpServer(async (request: IncomingMessage, response: ServerResponse) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      const answer = (xml: string) => response.writeHead(207, { 'content-type': 'application/xml' }).end(xml);
      if (request.method !== 'REPORT' || !body.includes('sync-collection')) return answer(multistatus(''));
      rounds += 1;
      answer(
        multistatus(
          `<d:response><d:href>/dav/cal/</d:href><d:status>HTTP/1.1 507 Insufficient Storage</d:status></d:response><d:sync-token>t${rounds}</d:sync-token>`,
        ),
      );
    });
    const sync = createCaldavProvider({ http: new ProviderHttp({ maxAttempts: 1 }) }).sync!;
    const account: AccountAccess<CredentialsOf<'caldav'>> = {
      accountKey: `acc_endless ${server.url}`,
      credentials: {
        kind: 'caldav',
        serverUrl: server.url,
        calendarHomeUrl: `${server.url}dav/`,
        username: 'alice',
        password: 'alice-password',
      },
      saveCredentials: async () => {},
    };
    const batches = sync.syncCalendar(
      account,
      { providerCalendarId: `${server.url}dav/cal/`, name: 'Cal', primary: true, access: 'owner' },
      {
        horizon: {
          start: Temporal.Instant.from('2026-01-01T00:00:00Z'),
          end: Temporal.Instant.from('2027-01-01T00:00:00Z'),
        },
        state: 'sync:t0',
        knownVersions: async () => new Map(),
      },
    );
    await rejectsWith(
      (async () => {
        for await (const _ of batches);
      })(),
      'payload_too_large',
      (error) => assert.deepEqual(error.details, { reason: 'too_large', bound: 'rounds' }),
    );
    assert.equal(rounds, syncLimits.rounds);
  });
});
