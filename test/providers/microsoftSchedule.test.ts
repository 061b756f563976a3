/** Graph getSchedule through the adapter, over HTTP against the fake Graph: other people's busy time, times only. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TimeWindow } from '../../src/domain/window.ts';
import { createMicrosoftProvider } from '../../src/providers/microsoft/adapter.ts';
import type { AccountAccess, CredentialsOf } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { alice, sampleUsers } from '../fakes/graph/sampleMailbox.ts';
import { FakeGraph } from '../fakes/graph.ts';
import { TestClock } from '../helpers/clock.ts';

const window: TimeWindow = {
  start: Temporal.Instant.from('2026-06-02T00:00:00Z'),
  end: Temporal.Instant.from('2026-06-03T00:00:00Z'),
};
const ns = (instant: string) => Temporal.Instant.from(instant).epochNanoseconds;

describe('Graph getSchedule', () => {
  const clock = new TestClock('2026-06-01T08:00:00Z');
  const http = new ProviderHttp({ baseDelayMs: 1, sleep: async () => {} });
  let graph: FakeGraph;
  let account: AccountAccess<CredentialsOf<'microsoft'>>;
  let provider: ReturnType<typeof createMicrosoftProvider>;

  before(async () => {
    graph = await FakeGraph.start({ users: sampleUsers() });
    provider = createMicrosoftProvider({ http, config: graph.config(), clock });
    const tokens = graph.issueTokens(alice);
    account = {
      accountKey: 'acc_alice',
      credentials: {
        kind: 'microsoft',
        ...tokens,
        expiresAt: clock.now().add({ hours: 1 }).epochMilliseconds,
      },
      saveCredentials: async () => {},
    };
    graph.schedules.set('Bea@Contoso.example', [
      { status: 'busy', start: '2026-06-02T09:00:00Z', end: '2026-06-02T10:00:00Z', subject: 'Salary talk' },
      { status: 'tentative', start: '2026-06-02T11:00:00Z', end: '2026-06-02T11:30:00Z' },
      { status: 'oof', start: '2026-06-02T13:00:00Z', end: '2026-06-02T14:00:00Z' },
      { status: 'workingElsewhere', start: '2026-06-02T15:00:00Z', end: '2026-06-02T16:00:00Z' },
      { status: 'free', start: '2026-06-02T17:00:00Z', end: '2026-06-02T18:00:00Z', subject: 'Gym' },
    ]);
    graph.schedules.set('vague@contoso.example', [
      { status: 'unknown', start: '2026-06-02T09:00:00Z', end: '2026-06-02T10:00:00Z' },
    ]);
  });
  after(() => graph.close());

  it('counts busy, tentative, oof and workingElsewhere items as busy, free ones not, and leaves out those Graph cannot tell', async () => {
    const emails = ['bea@contoso.example', 'vague@contoso.example', 'stranger@elsewhere.example'];
    const told = await provider.freeBusy!(account, emails, window);
    assert.deepEqual(
      [...told],
      [
        [
          'bea@contoso.example',
          {
            busy: [
              { startNs: ns('2026-06-02T09:00:00Z'), endNs: ns('2026-06-02T10:00:00Z') },
              { startNs: ns('2026-06-02T11:00:00Z'), endNs: ns('2026-06-02T11:30:00Z') },
              { startNs: ns('2026-06-02T13:00:00Z'), endNs: ns('2026-06-02T14:00:00Z') },
              { startNs: ns('2026-06-02T15:00:00Z'), endNs: ns('2026-06-02T16:00:00Z') },
            ],
          },
        ],
      ],
    );
    const request = graph.requests.findLast((r) => r.path === '/me/calendar/getSchedule');
    assert.equal(request?.method, 'POST');
    assert.deepEqual(request?.body, {
      schedules: emails,
      startTime: { dateTime: '2026-06-02T00:00:00', timeZone: 'UTC' },
      endTime: { dateTime: '2026-06-03T00:00:00', timeZone: 'UTC' },
      availabilityViewInterval: 5,
    });
  });

  it('reads plain working hours (Windows or IANA zone names), and none from hours it cannot hold anyone to', async () => {
    const hours = (startTime: string, endTime: string, zone: string) => ({
      daysOfWeek: ['Monday', 'tuesday', 'friday'],
      startTime,
      endTime,
      timeZone: { name: zone },
    });
    graph.schedules.set(
      'win@contoso.example',
      [],
      hours('08:30:00.0000000', '17:00:00.0000000', 'Pacific Standard Time'),
    );
    graph.schedules.set(
      'iana@contoso.example',
      [],
      hours('09:00:00.0000000', '18:00:00.0000000', 'Europe/Berlin'),
    );
    graph.schedules.set(
      'night@contoso.example',
      [],
      hours('22:00:00.0000000', '06:00:00.0000000', 'Europe/Berlin'),
    );
    graph.schedules.set(
      'custom@contoso.example',
      [],
      hours('09:00:00.0000000', '17:00:00.0000000', 'Customized Time Zone'),
    );
    const told = await provider.freeBusy!(
      account,
      ['win@contoso.example', 'iana@contoso.example', 'night@contoso.example', 'custom@contoso.example'],
      window,
    );
    const days = ['monday', 'tuesday', 'friday'];
    assert.deepEqual(told.get('win@contoso.example'), {
      busy: [],
      workingHours: { days, start: '08:30', end: '17:00', timeZone: 'America/Los_Angeles' },
    });
    assert.deepEqual(told.get('iana@contoso.example'), {
      busy: [],
      workingHours: { days, start: '09:00', end: '18:00', timeZone: 'Europe/Berlin' },
    });
    // Across midnight, or in a zone only Outlook knows: busy time still told, no hours.
    assert.deepEqual(told.get('night@contoso.example'), { busy: [] });
    assert.deepEqual(told.get('custom@contoso.example'), { busy: [] });
  });

  it('fails as a provider failure when Graph fails, for the caller to treat everyone as unknown', async () => {
    graph.failNext(1, { status: 503 });
    await assert.rejects(provider.freeBusy!(account, ['bea@contoso.example'], window), {
      code: 'provider_unavailable',
    });
  });

  it('stops reading an answer past its limit', async () => {
    const items = Array.from({ length: 40_000 }, (_, i) => ({
      status: 'busy' as const,
      start: '2026-06-02T09:00:00Z',
      end: '2026-06-02T10:00:00Z',
      subject: `Item ${i} with a subject long enough to weigh something`,
    }));
    graph.schedules.set('flood@contoso.example', items);
    await assert.rejects(provider.freeBusy!(account, ['flood@contoso.example'], window), {
      code: 'payload_too_large',
    });
  });
});
