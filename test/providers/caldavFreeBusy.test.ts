/**
 * CalDAV free/busy through the adapter (RFC 6638 §5): against a server with a schedule outbox
 * (the fake scheduling server) a VFREEBUSY request tells busy periods per recipient; against a
 * real Radicale, which has no outbox, nothing is asked and nobody is told about.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import type { TimeWindow } from '../../src/domain/window.ts';
import { connectCaldav, createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import type { AccountAccess, CredentialsOf } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { type SchedulingServer, startSchedulingServer } from '../fakes/caldavScheduling.ts';
import { TestClock } from '../helpers/clock.ts';
import { type RadicaleServer, radicaleMissing, startRadicale } from '../helpers/radicale.ts';

type Account = AccountAccess<CredentialsOf<'caldav'>>;

const window: TimeWindow = {
  start: Temporal.Instant.from('2026-03-02T00:00:00Z'),
  end: Temporal.Instant.from('2026-03-03T00:00:00Z'),
};
const ns = (instant: string) => Temporal.Instant.from(instant).epochNanoseconds;
const ana = { username: 'ana', password: 'ana-password' };
const http = new ProviderHttp({ sleep: async () => {} });
const provider = createCaldavProvider({ http, clock: new TestClock('2026-03-01T12:00:00Z') });

describe('CalDAV free/busy through a schedule outbox', () => {
  let server: SchedulingServer;
  let account: Account;

  before(async () => {
    server = await startSchedulingServer({ ...ana, address: 'ana@example.org' });
    account = {
      accountKey: 'acc_scheduling',
      credentials: { kind: 'caldav', serverUrl: server.url, ...ana, calendarHomeUrl: server.calendarHomeUrl },
      saveCredentials: async () => {},
    };
    server.people.set('gus@partner.example', [
      { start: '2026-03-02T09:00:00Z', end: '2026-03-02T10:00:00Z' },
      { start: '2026-03-02T11:00:00Z', end: '2026-03-02T11:30:00Z', fbtype: 'BUSY-TENTATIVE' },
      { start: '2026-03-02T13:00:00Z', end: '2026-03-02T14:00:00Z', fbtype: 'FREE' },
      { start: '2026-03-02T15:00:00Z', end: '2026-03-02T16:00:00Z', fbtype: 'BUSY-UNAVAILABLE' },
    ]);
    server.people.set('idle@partner.example', []);
  });
  after(() => server.close());

  it('asks as the account owner for every address at once and reads every period but FREE as busy', async () => {
    const emails = ['gus@partner.example', 'idle@partner.example', 'stranger@elsewhere.example'];
    const told = await provider.freeBusy!(account, emails, window);
    assert.deepEqual(
      [...told],
      [
        [
          'gus@partner.example',
          {
            busy: [
              { startNs: ns('2026-03-02T09:00:00Z'), endNs: ns('2026-03-02T10:00:00Z') },
              { startNs: ns('2026-03-02T11:00:00Z'), endNs: ns('2026-03-02T11:30:00Z') },
              { startNs: ns('2026-03-02T15:00:00Z'), endNs: ns('2026-03-02T16:00:00Z') },
            ],
          },
        ],
        ['idle@partner.example', { busy: [] }],
      ],
    );
    assert.equal(server.posted.length, 1);
    const request = new ICAL.Component(ICAL.parse(server.posted[0]!));
    assert.equal(request.getFirstPropertyValue('method'), 'REQUEST');
    const query = request.getFirstSubcomponent('vfreebusy')!;
    assert.equal(query.getFirstPropertyValue('organizer'), 'mailto:ana@example.org');
    assert.deepEqual(
      query.getAllProperties('attendee').map((p) => p.getFirstValue()),
      emails.map((email) => `mailto:${email}`),
    );
    assert.equal(String(query.getFirstPropertyValue('dtstart')), '2026-03-02T00:00:00Z');
    assert.equal(String(query.getFirstPropertyValue('dtend')), '2026-03-03T00:00:00Z');
  });
});

describe('CalDAV free/busy against Radicale (no schedule outbox)', { skip: radicaleMissing() }, () => {
  let radicale: RadicaleServer;
  let account: Account;

  before(async () => {
    radicale = await startRadicale({ users: { 'ana@example.org': 'ana-password' } });
    const { credentials } = await connectCaldav(
      { http },
      { serverUrl: radicale.url, username: 'ana@example.org', password: 'ana-password' },
    );
    account = { accountKey: 'acc_radicale', credentials, saveCredentials: async () => {} };
  });
  after(() => radicale?.stop());

  it('tells about nobody: the server cannot', async () => {
    const told = await provider.freeBusy!(account, ['gus@partner.example'], window);
    assert.equal(told.size, 0);
  });
});
