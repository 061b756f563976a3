/** The rooms an account can book, through the adapters over HTTP against the fakes. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AppError } from '../../src/errors.ts';
import { connectCaldav, createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import { createMicrosoftProvider } from '../../src/providers/microsoft/adapter.ts';
import { microsoftScopes } from '../../src/providers/microsoft/oauth.ts';
import type { AccountAccess, CredentialsOf } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { type SchedulingServer, startSchedulingServer } from '../fakes/caldavScheduling.ts';
import { FakeGoogle } from '../fakes/google.ts';
import { FakeGraph } from '../fakes/graph.ts';
import { TestClock } from '../helpers/clock.ts';
import { type RadicaleServer, radicaleMissing, startRadicale } from '../helpers/radicale.ts';

const clock = new TestClock('2026-06-01T08:00:00Z');
const http = new ProviderHttp({ baseDelayMs: 1, sleep: async () => {} });
const access = <K extends 'google' | 'microsoft' | 'caldav'>(
  credentials: CredentialsOf<K>,
): AccountAccess<CredentialsOf<K>> => ({
  accountKey: 'acc_1',
  credentials,
  saveCredentials: async () => {},
});

describe('rooms from Graph places', () => {
  let graph: FakeGraph;
  before(async () => {
    graph = await FakeGraph.start({ users: [{ email: 'ana@contoso.example', calendars: [] }] });
    graph.rooms.push(
      {
        emailAddress: 'orion@contoso.example',
        displayName: 'Orion',
        capacity: 8,
        tags: ['Video'],
        isWheelChairAccessible: true,
      },
      { emailAddress: null, displayName: 'No address' },
    );
  });
  after(() => graph.close());
  const account = (scopes: string[]) => {
    const tokens = graph.issueTokens('ana@contoso.example', scopes);
    return access<'microsoft'>({
      kind: 'microsoft',
      ...tokens,
      expiresAt: clock.now().add({ hours: 1 }).epochMilliseconds,
    });
  };

  it('lists rooms with an address: name, capacity, and features from tags and devices', async () => {
    const provider = createMicrosoftProvider({ http, config: graph.config(), clock });
    assert.deepEqual(await provider.listRooms!(account([...microsoftScopes, 'Place.Read.All'])), [
      { email: 'orion@contoso.example', name: 'Orion', capacity: 8, features: ['Video', 'wheelchair'] },
    ]);
  });

  it('is refused without Place.Read.All, as an error the import counts, not a reconnect', async () => {
    const provider = createMicrosoftProvider({ http, config: graph.config(), clock });
    await assert.rejects(
      provider.listRooms!(account(microsoftScopes)),
      (e: AppError) => e.code === 'not_found',
    );
  });
});

describe('rooms from Google resource calendars', () => {
  let google: FakeGoogle;
  before(async () => {
    google = await FakeGoogle.start({
      calendars: [
        { id: 'ana@acme.example', summary: 'Ana', timeZone: 'UTC', accessRole: 'owner', primary: true },
        {
          id: 'c_1@resource.calendar.google.com',
          summary: 'HQ-2-Vega (12) [Video]',
          timeZone: 'UTC',
          accessRole: 'freeBusyReader',
        },
      ],
    });
  });
  after(() => google.close());

  it('lists the resource calendars the account sees, and nothing else', async () => {
    const provider = createGoogleProvider({ http, config: google.config(), clock });
    const rooms = await provider.listRooms!(access<'google'>({ kind: 'google', ...google.oauth.issue() }));
    assert.deepEqual(rooms, [
      { email: 'c_1@resource.calendar.google.com', name: 'HQ-2-Vega', capacity: 12, features: ['Video'] },
    ]);
  });
});

describe('rooms from CalDAV principals of type ROOM', () => {
  const caldav = createCaldavProvider({ http, clock });
  const ana = { username: 'ana', password: 'ana-password' };
  let server: SchedulingServer;
  before(async () => {
    server = await startSchedulingServer({ ...ana, address: 'ana@example.org' });
    server.rooms.set('atlas@example.org', 'Atlas');
  });
  after(() => server.close());

  it('lists the principals a principal-property-search finds of type ROOM, and no other type', async () => {
    const rooms = await caldav.listRooms!(
      access<'caldav'>({
        kind: 'caldav',
        serverUrl: server.url,
        ...ana,
        calendarHomeUrl: server.calendarHomeUrl,
      }),
    );
    assert.deepEqual(rooms, [{ email: 'atlas@example.org', name: 'Atlas', features: [] }]);
  });
});

describe('rooms from Radicale, which has no principal search', { skip: radicaleMissing() }, () => {
  let radicale: RadicaleServer;
  before(async () => {
    radicale = await startRadicale({ users: { 'ana@example.org': 'ana-password' } });
  });
  after(() => radicale?.stop());

  it('lists none, without an error', async () => {
    const caldav = createCaldavProvider({ http, clock });
    const { credentials } = await connectCaldav(
      { http },
      {
        serverUrl: radicale.url,
        username: 'ana@example.org',
        password: 'ana-password',
      },
    );
    assert.deepEqual(await caldav.listRooms!(access<'caldav'>(credentials)), []);
  });
});
