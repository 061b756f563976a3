/**
 * Connected accounts end to end on a real Radicale and local feeds: connecting stores nothing
 * unless the provider accepted the credentials; credentials are sealed; a rejected credential
 * marks the account; events come out as the client may see them.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  addConnection,
  type ConnectionDeps,
  calendarAddressOf,
  reconnectWithPassword,
} from '../../src/calendars/connections/connections.ts';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import { readCalendarEvents } from '../../src/calendars/reads/calendarEvents.ts';
import { AppError } from '../../src/errors.ts';
import { createSecretBox } from '../../src/lib/encryption.ts';
import { createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import { createIcsProvider } from '../../src/providers/ics/adapter.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import {
  accountsOf,
  calendarsOfAccount,
  findAccount,
  sealedCredentialsOf,
} from '../../src/store/connectedAccounts.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { TestClock } from '../helpers/clock.ts';
import { assertValidEvent } from '../helpers/eventSchema.ts';
import {
  mkcalendar,
  putIcs,
  type RadicaleServer,
  radicaleMissing,
  startRadicale,
} from '../helpers/radicale.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const rejectsWith = (promise: Promise<unknown>, code: string, field?: string) =>
  assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.code, code, e.message);
    if (field !== undefined) assert.equal(e.details?.field, field);
    return true;
  });

const floatingIcs = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//t//EN',
  'BEGIN:VEVENT',
  'UID:lunch',
  'DTSTAMP:20261001T000000Z',
  'DTSTART:20261105T120000',
  'DTEND:20261105T130000',
  'SUMMARY:Lunch with Ana',
  'DESCRIPTION:Bring the contract',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:secret',
  'DTSTAMP:20261001T000000Z',
  'DTSTART:20261105T150000',
  'DTEND:20261105T160000',
  'SUMMARY:Interview',
  'CLASS:CONFIDENTIAL',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe('connected accounts', { skip: radicaleMissing() }, () => {
  let radicale: RadicaleServer;
  let feeds: Server;
  let feedBase: string;
  let handle: DatabaseHandle;
  let deps: ConnectionDeps & { ids: ReturnType<typeof createEventIds> };
  let owner: { userId: string; workspaceId: string };
  const window = {
    start: Temporal.Instant.from('2026-11-01T00:00:00Z'),
    end: Temporal.Instant.from('2026-11-30T00:00:00Z'),
  };

  before(async () => {
    radicale = await startRadicale();
    const auth = { username: radicale.username, password: radicale.password };
    const calendarUrl = new URL(`${radicale.username}/floating/`, radicale.url).href;
    await mkcalendar(calendarUrl, auth, { displayName: 'Floating' });
    await putIcs(calendarUrl, auth, floatingIcs);
    feeds = createServer((request, response) => {
      if (request.url === '/page.html')
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>');
      else if (request.url === '/huge.ics')
        response
          .writeHead(200, { 'content-type': 'text/calendar' })
          .end(`BEGIN:VCALENDAR\r\n${'X-PAD:'.padEnd(70, 'x')}\r\n`.repeat(80_000));
      else response.writeHead(200, { 'content-type': 'text/calendar' }).end(floatingIcs);
    });
    await new Promise<void>((resolve) => feeds.listen(0, '127.0.0.1', resolve));
    feedBase = `http://127.0.0.1:${(feeds.address() as { port: number }).port}`;

    handle = openDatabase({ sqlitePath: ':memory:' });
    await migrateToLatest(handle);
    const http = new ProviderHttp({ sleep: async () => {} });
    const key = randomBytes(32);
    deps = {
      db: handle.db,
      clock: new TestClock(),
      box: createSecretBox(key),
      providers: {
        caldav: createCaldavProvider({ http }),
        ics: createIcsProvider({ http, allowPrivateNetworks: true, maxBytes: 1024 * 1024 }),
      },
      ids: createEventIds(key),
    };
    const userId = await seedUser(handle.db, 'ana@example.org');
    owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Home', [[userId, 'owner']]) };
  });
  after(async () => {
    await radicale?.stop();
    await new Promise((resolve) => feeds?.close(resolve));
    await handle?.close();
  });

  const caldav = (password: string) => ({
    kind: 'caldav' as const,
    serverUrl: radicale.url,
    username: radicale.username,
    password,
  });

  it('refuses bad input with a clear error and stores nothing', async () => {
    await rejectsWith(
      addConnection(deps, owner, caldav('wrong password'), 'x'),
      'invalid_request',
      'password',
    );
    await rejectsWith(
      addConnection(deps, owner, { ...caldav(radicale.password), serverUrl: `${feedBase}/page.html` }, 'x'),
      'invalid_request',
      'serverUrl',
    );
    await rejectsWith(
      addConnection(deps, owner, { ...caldav(radicale.password), serverUrl: 'http://127.0.0.1:9/' }, 'x'),
      'invalid_request',
      'serverUrl',
    );
    await rejectsWith(
      addConnection(deps, owner, { kind: 'ics', url: `${feedBase}/page.html` }, 'x'),
      'invalid_request',
      'url',
    );
    await rejectsWith(
      addConnection(deps, owner, { kind: 'ics', url: `${feedBase}/huge.ics` }, 'x'),
      'payload_too_large',
    );
    await rejectsWith(
      addConnection(
        deps,
        { ...owner, workspaceId: 'ws_other' },
        { kind: 'ics', url: `${feedBase}/a.ics` },
        'x',
      ),
      'not_found',
    );
    assert.deepEqual(await accountsOf(handle.db, owner.userId), []);
  });

  it('connects CalDAV, keeps the discovered home, and seals the password bound to the account', async () => {
    const { account, calendars } = await addConnection(
      deps,
      owner,
      caldav(radicale.password),
      'ana on radicale',
    );
    assert.deepEqual(
      calendars.map((c) => c.name),
      ['Floating'],
    );
    const sealed = (await sealedCredentialsOf(handle.db, account.id))!;
    assert.ok(!sealed.includes(radicale.password));
    const opened = JSON.parse(deps.box.open(sealed, account.id));
    assert.match(opened.calendarHomeUrl, /^http:\/\/127\.0\.0\.1:\d+\//);
    // Radicale names no address and the login `alice` is none: the sign-in e-mail is used.
    assert.deepEqual(opened.calendarAddress, { email: 'ana@example.org', from: 'signIn' });
    assert.throws(() => deps.box.open(sealed, 'acc_another'), 'bound to its account');
    const tampered = sealed.replace(/\.(.)/, (_m, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
    assert.throws(() => deps.box.open(tampered, account.id), 'tampering is detected');
  });

  it('asks for a time zone before reading a calendar with floating times, then places them with it', async () => {
    const [account] = await accountsOf(handle.db, owner.userId);
    const [calendar] = await calendarsOfAccount(handle.db, account!.id);
    const read = (options: Partial<Parameters<typeof readCalendarEvents>[3]>) =>
      readCalendarEvents(deps, account!, calendar!, {
        window,
        detailLevel: 'full',
        privateDetails: false,
        ...options,
      });
    await rejectsWith(read({}), 'time_zone_required');
    const { events } = await read({ timeZone: 'America/New_York' });
    for (const { event } of events) assertValidEvent(event);
    assert.deepEqual(
      events.map((p) => [
        p.event.title,
        p.event.start,
        p.event.timeZone,
        Temporal.Instant.fromEpochNanoseconds(p.startNs).toString(),
      ]),
      [
        ['Lunch with Ana', '2026-11-05T12:00:00-05:00', undefined, '2026-11-05T17:00:00Z'],
        ['Busy', '2026-11-05T15:00:00-05:00', undefined, '2026-11-05T20:00:00Z'],
      ],
    );
    assert.equal(events[0]!.event.description, 'Bring the contract');
    const titles = await read({ timeZone: 'America/New_York', detailLevel: 'titles' });
    assert.equal(titles.events[0]!.event.description, undefined);
  });

  it('marks an account whose password stops working, and never retries it until reconnected', async () => {
    const [account] = await accountsOf(handle.db, owner.userId);
    const [calendar] = await calendarsOfAccount(handle.db, account!.id);
    const sealed = (await sealedCredentialsOf(handle.db, account!.id))!;
    // Stored as before addresses were kept, without one.
    const { calendarAddress: _kept, ...older } = JSON.parse(deps.box.open(sealed, account!.id));
    const broken = { ...older, password: 'revoked' };
    await handle.db
      .updateTable('connected_accounts')
      .set({ credentials: deps.box.seal(JSON.stringify(broken), account!.id) })
      .where('id', '=', account!.id)
      .execute();
    const options = {
      window,
      detailLevel: 'full' as const,
      privateDetails: false,
      timeZone: 'Europe/Berlin',
    };
    await rejectsWith(readCalendarEvents(deps, account!, calendar!, options), 'reconnect_required');
    const marked = (await findAccount(handle.db, account!.id))!;
    assert.equal(marked.status, 'reconnect_required');
    await rejectsWith(readCalendarEvents(deps, marked, calendar!, options), 'reconnect_required');
    await rejectsWith(reconnectWithPassword(deps, marked, 'still wrong'), 'invalid_request', 'password');
    await reconnectWithPassword(deps, marked, radicale.password);
    const healed = (await findAccount(handle.db, account!.id))!;
    assert.equal(healed.status, 'active');
    assert.deepEqual(await calendarAddressOf(deps, healed), { email: 'ana@example.org', from: 'signIn' });
    assert.equal((await readCalendarEvents(deps, healed, calendar!, options)).events.length, 2);
  });
});
