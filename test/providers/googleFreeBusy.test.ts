/** Google freeBusy.query through the adapter, over HTTP against the fake Google: other people's busy time. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TimeWindow } from '../../src/domain/window.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import type { AccountAccess, CredentialsOf } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { FakeGoogle } from '../fakes/google.ts';
import { TestClock } from '../helpers/clock.ts';

const window: TimeWindow = {
  start: Temporal.Instant.from('2026-10-21T00:00:00Z'),
  end: Temporal.Instant.from('2026-10-22T00:00:00Z'),
};
const ns = (instant: string) => Temporal.Instant.from(instant).epochNanoseconds;

describe('Google freeBusy', () => {
  const clock = new TestClock('2026-10-20T12:00:00Z');
  const http = new ProviderHttp({ baseDelayMs: 1, sleep: async () => {} });
  let google: FakeGoogle;
  let account: AccountAccess<CredentialsOf<'google'>>;
  let provider: ReturnType<typeof createGoogleProvider>;

  before(async () => {
    google = await FakeGoogle.start({ clock });
    provider = createGoogleProvider({ http, config: google.config(), clock });
    account = {
      accountKey: 'acc_google',
      credentials: { kind: 'google', ...google.oauth.issue() },
      saveCredentials: async () => {},
    };
    google.freeBusy.set('Ann@Partner.example', [
      { start: '2026-10-20T23:00:00Z', end: '2026-10-21T01:00:00Z' },
      { start: '2026-10-21T14:00:00Z', end: '2026-10-21T15:00:00Z' },
    ]);
    google.freeBusy.set('idle@partner.example', []);
  });
  after(() => google.close());

  it('gives the busy spans of those Google can tell about, keyed by lower-cased address, and leaves out the others', async () => {
    const emails = ['ann@partner.example', 'idle@partner.example', 'stranger@elsewhere.example'];
    const told = await provider.freeBusy!(account, emails, window);
    assert.deepEqual(
      [...told],
      [
        [
          'ann@partner.example',
          {
            busy: [
              { startNs: ns('2026-10-21T00:00:00Z'), endNs: ns('2026-10-21T01:00:00Z') },
              { startNs: ns('2026-10-21T14:00:00Z'), endNs: ns('2026-10-21T15:00:00Z') },
            ],
          },
        ],
        ['idle@partner.example', { busy: [] }],
      ],
    );
    const request = google.requests.findLast((r) => r.url === '/calendar/v3/freeBusy');
    assert.deepEqual(request?.body, {
      timeMin: '2026-10-21T00:00:00Z',
      timeMax: '2026-10-22T00:00:00Z',
      items: emails.map((id) => ({ id })),
    });
  });

  it('fails as a provider failure when Google fails, for the caller to treat everyone as unknown', async () => {
    google.inject({ status: 500, match: /freeBusy/ });
    await assert.rejects(provider.freeBusy!(account, ['ann@partner.example'], window), {
      code: 'provider_unavailable',
    });
  });
});
