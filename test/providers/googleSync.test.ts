/**
 * The Google adapter's incremental sync and push channels against the fake Google: pages as
 * batches, the sync token as state, 410 as a new full sync, what a sync may ask and spend, and
 * that the copy reads as listEvents does.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ProviderCalendar, ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import type { TimeWindow } from '../../src/domain/window.ts';
import { AppError } from '../../src/errors.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import { googleConfig } from '../../src/providers/google/config.ts';
import { nearWindow } from '../../src/providers/nearWindow.ts';
import type { AccountAccess, CredentialsOf, SyncBatch, SyncRequest } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { type FakeCalendarSeed, FakeGoogle } from '../fakes/google.ts';
import { TestClock } from '../helpers/clock.ts';

const ny = 'America/New_York';
const primaryId = 'person@example.com';
const timed = (id: string, start: string, end: string, extra: object = {}) => ({
  id,
  summary: id,
  start: { dateTime: start, timeZone: ny },
  end: { dateTime: end, timeZone: ny },
  ...extra,
});

const seed: FakeCalendarSeed[] = [
  {
    id: primaryId,
    summary: primaryId,
    timeZone: ny,
    accessRole: 'owner',
    primary: true,
    defaultReminders: [{ method: 'popup', minutes: 10 }],
    events: [
      timed('standup', '2026-10-21T09:00:00-04:00', '2026-10-21T09:30:00-04:00', {
        attendees: [
          { email: primaryId, self: true, organizer: true, responseStatus: 'accepted' },
          { email: 'bob@example.com', responseStatus: 'needsAction' },
        ],
      }),
      // No zone on the event: the calendar's zone places it.
      {
        id: 'review',
        summary: 'Review',
        start: { dateTime: '2026-10-22T15:00:00+02:00' },
        end: { dateTime: '2026-10-22T16:00:00+02:00' },
      },
      {
        id: 'eve',
        summary: 'Day before the window',
        start: { date: '2026-10-18' },
        end: { date: '2026-10-19' },
      },
      { id: 'long-ago', summary: 'Long ago', start: { date: '2026-01-05' }, end: { date: '2026-01-06' } },
      timed('far-ahead', '2027-03-01T09:00:00-05:00', '2027-03-01T10:00:00-05:00'),
      timed('dst-night', '2026-11-01T00:30:00-04:00', '2026-11-01T03:30:00-05:00'),
      timed('doctor', '2026-10-23T14:00:00-04:00', '2026-10-23T15:00:00-04:00', { visibility: 'private' }),
      timed('weekly', '2026-10-19T10:00:00-04:00', '2026-10-19T10:45:00-04:00', {
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
      }),
      timed('weekly_20261026T140000Z', '2026-10-26T11:00:00-04:00', '2026-10-26T11:45:00-04:00', {
        recurringEventId: 'weekly',
        originalStartTime: { dateTime: '2026-10-26T10:00:00-04:00', timeZone: ny },
        summary: 'Weekly (moved)',
      }),
      {
        id: 'weekly_20261109T150000Z',
        recurringEventId: 'weekly',
        originalStartTime: { dateTime: '2026-11-09T10:00:00-05:00', timeZone: ny },
        status: 'cancelled',
      },
      timed('daily', '2026-10-20T08:00:00-04:00', '2026-10-20T08:15:00-04:00', {
        recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
      }),
      {
        id: 'bad-zone',
        summary: 'Somewhere',
        start: { dateTime: '2026-10-21T10:00:00Z', timeZone: 'Mars/Olympus_Mons' },
        end: { dateTime: '2026-10-21T11:00:00Z', timeZone: 'Mars/Olympus_Mons' },
      },
      timed('gone', '2026-10-28T10:00:00-04:00', '2026-10-28T11:00:00-04:00'),
    ],
  },
  {
    id: 'team@group.calendar.google.com',
    summary: 'Team',
    timeZone: 'Europe/Berlin',
    accessRole: 'reader',
    events: [
      {
        id: 'team-private',
        summary: 'Reorganisation',
        visibility: 'private',
        start: { dateTime: '2026-10-21T10:00:00+02:00', timeZone: 'Europe/Berlin' },
        end: { dateTime: '2026-10-21T11:00:00+02:00', timeZone: 'Europe/Berlin' },
      },
    ],
  },
  {
    id: 'boss@example.com',
    summary: 'Boss',
    timeZone: 'America/Chicago',
    accessRole: 'freeBusyReader',
    events: [
      {
        id: 'boss-1',
        summary: 'Secret',
        start: { dateTime: '2026-10-21T10:00:00-05:00' },
        end: { dateTime: '2026-10-21T11:00:00-05:00' },
      },
      {
        id: 'boss-2',
        summary: 'Lunch (free)',
        transparency: 'transparent',
        start: { dateTime: '2026-10-21T12:00:00-05:00' },
        end: { dateTime: '2026-10-21T13:00:00-05:00' },
      },
    ],
  },
];

const window: TimeWindow = {
  start: Temporal.Instant.from('2026-10-19T00:00:00Z'),
  end: Temporal.Instant.from('2026-11-16T00:00:00Z'),
};
/** Items the fake lists for the primary calendar: instances expanded, the deleted one as a tombstone. */
const primaryItems = 18;
const pageSize = 4;

type GoogleAccount = AccountAccess<CredentialsOf<'google'>> & { saved: CredentialsOf<'google'>[] };

const drain = async (batches: AsyncIterable<SyncBatch>): Promise<SyncBatch[]> => {
  const all: SyncBatch[] = [];
  for await (const batch of batches) all.push(batch);
  return all;
};
const byOccurrence = (a: ProviderOccurrence, b: ProviderOccurrence) =>
  `${a.providerEventId} ${a.recurrenceId ?? ''}`.localeCompare(
    `${b.providerEventId} ${b.recurrenceId ?? ''}`,
  );
const occurrencesOf = (batches: SyncBatch[]) =>
  batches.flatMap((batch) => batch.upserts.flatMap((item) => item.occurrences));
const keys = (batches: SyncBatch[]) => ({
  upserts: batches.flatMap((batch) => batch.upserts.map((item) => item.key)).sort(),
  removals: batches.flatMap((batch) => batch.removals).sort(),
});
const rejectsWith = (promise: Promise<unknown>, code: string, details: Record<string, unknown> = {}) =>
  assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code);
    for (const [key, value] of Object.entries(details)) assert.equal(error.details?.[key], value, key);
    return true;
  });

describe('Google Calendar sync', () => {
  const clock = new TestClock('2026-10-20T12:00:00Z');
  const http = new ProviderHttp({ baseDelayMs: 1, sleep: async () => {} });
  let google: FakeGoogle;
  let provider: ReturnType<typeof createGoogleProvider>;
  let calendars: ProviderCalendar[];

  const connected = (): GoogleAccount => {
    const saved: CredentialsOf<'google'>[] = [];
    return {
      accountKey: 'acc_google',
      credentials: { kind: 'google', ...google.oauth.issue() },
      saveCredentials: async (credentials) => void saved.push(credentials),
      saved,
    };
  };
  const calendar = (id: string) => calendars.find((c) => c.providerCalendarId === id)!;
  const request = (state?: string, horizon = window): SyncRequest => ({
    horizon,
    ...(state === undefined ? {} : { state }),
    knownVersions: async () => new Map(),
  });
  const sync = (state?: string, account = connected(), id = primaryId) =>
    provider.sync!.syncCalendar(account, calendar(id), request(state));
  const listings = (from: number) =>
    google.requests
      .slice(from)
      .filter((r) => r.url.startsWith(`/calendar/v3/calendars/`) && r.url.includes('/events?'));
  /** A full sync, for the state later syncs start from. */
  const caughtUp = async () => (await drain(sync())).at(-1)?.nextState;

  before(async () => {
    google = await FakeGoogle.start({ clock, calendars: seed, maxPageSize: pageSize });
    provider = createGoogleProvider({ http, config: google.config(), clock });
    calendars = await provider.listCalendars(connected());
    google.calendars.deleteEvent(primaryId, 'gone');
  });
  after(() => google.close());

  it('copies exactly what listEvents reads, for owners, readers and free/busy readers', async () => {
    const week: TimeWindow = {
      start: Temporal.Instant.from('2026-10-26T00:00:00Z'),
      end: Temporal.Instant.from('2026-11-02T00:00:00Z'),
    };
    for (const id of [primaryId, 'team@group.calendar.google.com', 'boss@example.com']) {
      const copy = occurrencesOf(await drain(sync(undefined, connected(), id)));
      for (const read of [window, week]) {
        const live = await provider.listEvents(connected(), calendar(id), read);
        if (read === window) assert.ok(live.occurrences.length > 0, `${id} has occurrences to compare`);
        assert.deepEqual(
          copy.filter((occurrence) => nearWindow(occurrence, read)).sort(byOccurrence),
          live.occurrences.sort(byOccurrence),
          `${id} over ${read.start}`,
        );
      }
    }
  });

  it('pages a full sync as batches that arrive one page at a time, nextState on the last only', async () => {
    google.counts.reset();
    const from = google.requests.length;
    const iterator = sync()[Symbol.asyncIterator]();
    const first = await iterator.next();
    assert.equal(
      google.counts.count({ kind: 'events.list' }),
      1,
      'the first batch comes before the second page is asked',
    );
    const batches = [first.value as SyncBatch];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) batches.push(next.value);

    assert.equal(batches.length, Math.ceil(primaryItems / pageSize));
    assert.equal(google.counts.count({ kind: 'events.list' }), batches.length);
    assert.ok(batches.every((batch) => batch.full));
    assert.deepEqual(
      batches.map((batch) => typeof batch.nextState),
      [...batches.slice(1).map(() => 'undefined'), 'string'],
    );
    const { upserts, removals } = keys(batches);
    assert.equal(
      upserts.length + removals.length + batches.flatMap((b) => b.skipped).length - 1,
      primaryItems,
    );
    assert.deepEqual(removals, ['gone', 'weekly_20261109T150000Z']);
    const items = new Map(batches.flatMap((batch) => batch.upserts).map((item) => [item.key, item]));
    assert.deepEqual(items.get('long-ago')?.occurrences, [], 'kept outside the horizon, without occurrences');
    assert.deepEqual(items.get('far-ahead')?.occurrences, []);
    assert.equal(items.get('eve')?.occurrences.length, 1, 'all-day within a day of the horizon');
    assert.deepEqual(
      items.get('bad-zone')?.occurrences,
      [],
      'an unreadable item is kept without occurrences',
    );
    assert.equal(batches.flatMap((batch) => batch.skipped)[0]?.providerEventId, 'bad-zone');
    const moved = items.get('weekly_20261026T140000Z');
    assert.equal(moved?.version, google.calendars.find(primaryId, 'weekly_20261026T140000Z')?.event.etag);
    assert.deepEqual(
      moved?.occurrences.map((o) => [o.providerEventId, o.recurrenceId, o.title]),
      [['weekly', '2026-10-26T14:00:00Z', 'Weekly (moved)']],
    );
    for (const listing of listings(from)) {
      const query = new URL(listing.url, google.url).searchParams;
      assert.equal(query.get('singleEvents'), 'true');
      assert.equal(query.get('showDeleted'), 'true');
      assert.equal(query.get('maxResults'), '250');
    }
  });

  it('gives exactly the changes since the last sync: created, updated, deleted, an exception, a deleted series', async () => {
    const state = await caughtUp();
    const quiet = await drain(sync(state));
    assert.deepEqual(
      quiet.map((b) => [b.full, b.upserts.length, b.removals.length]),
      [[false, 0, 0]],
    );
    assert.equal(typeof quiet[0]?.nextState, 'string');

    google.calendars.putEvent(
      primaryId,
      timed('created', '2026-10-29T13:00:00-04:00', '2026-10-29T14:00:00-04:00'),
    );
    const etag = google.calendars.changeEvent(primaryId, 'standup', { summary: 'Standup (renamed)' });
    google.calendars.deleteEvent(primaryId, 'review');
    google.calendars.changeEvent(primaryId, 'weekly_20261102T150000Z', { summary: 'Moved by someone' });
    google.calendars.deleteEvent(primaryId, 'daily');

    const changes = await drain(sync(quiet[0]?.nextState));
    assert.ok(changes.every((batch) => !batch.full));
    assert.equal(typeof changes.at(-1)?.nextState, 'string');
    assert.deepEqual(keys(changes), {
      upserts: ['created', 'standup', 'weekly_20261102T150000Z'],
      removals: ['daily_20261020T120000Z', 'daily_20261021T120000Z', 'daily_20261022T120000Z', 'review'],
    });
    const items = new Map(changes.flatMap((batch) => batch.upserts).map((item) => [item.key, item]));
    assert.equal(items.get('standup')?.version, etag);
    assert.equal(items.get('standup')?.occurrences[0]?.title, 'Standup (renamed)');
    assert.equal(items.get('weekly_20261102T150000Z')?.occurrences[0]?.recurrenceId, '2026-11-02T15:00:00Z');
    assert.deepEqual(keys(await drain(sync(changes.at(-1)?.nextState))), { upserts: [], removals: [] });
  });

  it('spends exactly one request on an incremental sync after one change', async () => {
    const state = await caughtUp();
    google.calendars.changeEvent(primaryId, 'standup', { location: 'Room 2' });
    google.counts.reset();
    const batches = await drain(sync(state));
    assert.deepEqual(google.counts.byKind(), { 'events.list': 1 });
    assert.deepEqual(keys(batches).upserts, ['standup']);
  });

  it('starts over as a full sync in the same iteration when Google forgot the sync token (410)', async () => {
    const state = await caughtUp();
    google.calendars.expireSyncTokens(primaryId);
    const from = google.requests.length;
    const batches = await drain(sync(state));
    assert.deepEqual(
      listings(from)
        .map((r) => r.status)
        .slice(0, 2),
      [410, 200],
    );
    assert.ok(batches.length > 1 && batches.every((batch) => batch.full));
    assert.equal(typeof batches.at(-1)?.nextState, 'string');
    assert.deepEqual(keys(await drain(sync(batches.at(-1)?.nextState))).upserts, [], 'the new state works');
  });

  it('starts over as a full sync when the token expires in the middle of an incremental listing', async () => {
    const state = await caughtUp();
    for (const day of [2, 3, 4, 5, 6, 9]) {
      const date = `2026-11-${String(day).padStart(2, '0')}`;
      google.calendars.putEvent(
        primaryId,
        timed(`added${day}`, `${date}T12:00:00-05:00`, `${date}T13:00:00-05:00`),
      );
    }
    const iterator = sync(state)[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as SyncBatch;
    assert.equal(first.full, false);
    assert.equal(first.nextState, undefined);
    google.calendars.expireSyncTokens(primaryId);
    const rest: SyncBatch[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    assert.ok(rest.length > 1 && rest.every((batch) => batch.full));
    assert.ok(keys(rest).upserts.includes('added9'));
    assert.equal(typeof rest.at(-1)?.nextState, 'string');
  });

  it('gives up when a full sync is refused with 410 as well', async () => {
    google.inject({ status: 410, times: 2, match: /\/events\?/ });
    await rejectsWith(drain(sync('stale-token')), 'not_found', { reason: 'gone', status: 410 });
  });

  it('throws provider_unavailable after the batches already read when Google fails mid-listing', async () => {
    google.inject({ status: 503, times: 3, match: /\/events\?.*pageToken=/ });
    const batches: SyncBatch[] = [];
    await rejectsWith(
      (async () => {
        for await (const batch of sync()) batches.push(batch);
      })(),
      'provider_unavailable',
      { reason: 'server_error', status: 503 },
    );
    assert.equal(batches.length, 1);
    assert.equal(batches[0]?.nextState, undefined);
  });

  it('refreshes an access token Google refused and saves it; a refused refresh asks for a reconnect', async () => {
    const account = connected();
    google.oauth.expireAccessTokens();
    const batches = await drain(sync(undefined, account));
    assert.equal(typeof batches.at(-1)?.nextState, 'string');
    assert.equal(account.saved.length, 1);

    const revoked = connected();
    google.oauth.expireAccessTokens();
    google.oauth.revokeRefreshTokens();
    await rejectsWith(drain(sync(undefined, revoked)), 'reconnect_required', { reason: 'grant_refused' });
  });

  it('never sends a parameter Google forbids with syncToken (the fake would answer 400)', () => {
    const allowed = new Set(['singleEvents', 'showDeleted', 'maxResults', 'syncToken', 'pageToken']);
    const incremental = listings(0).filter((r) => r.url.includes('syncToken='));
    assert.ok(incremental.length >= 8, `${incremental.length} incremental listings`);
    for (const listing of incremental) {
      const query = new URL(listing.url, google.url).searchParams;
      assert.deepEqual(
        [...query.keys()].filter((name) => !allowed.has(name)),
        [],
        listing.url,
      );
      assert.equal(query.get('showDeleted'), 'true');
    }
    assert.deepEqual(
      listings(0).filter((r) => r.status === 400),
      [],
    );
  });

  describe('push channels', () => {
    const received: IncomingHttpHeaders[] = [];
    const receiver = createServer((req, res) => {
      received.push(req.headers);
      req.resume().on('end', () => res.writeHead(200).end());
    });
    let address: string;

    before(async () => {
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      address = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/google`;
    });
    after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

    it('watches a calendar, hears its changes with the token, and stops (twice is fine)', async () => {
      const account = connected();
      const expiresAt = clock.now().add({ hours: 6 }).epochMilliseconds;
      const channel = await provider.push!.watch(account, calendar(primaryId), {
        channelId: 'chn-1',
        address,
        token: 'channel-secret',
        expiresAt,
      });
      const open = google.channels.open();
      assert.deepEqual(channel, { channelId: 'chn-1', resourceId: open[0]?.resourceId, expiresAt });
      assert.deepEqual(
        open.map((c) => [c.id, c.calendarId, c.expiration]),
        [['chn-1', primaryId, expiresAt]],
      );

      google.calendars.changeEvent(primaryId, 'standup', { summary: 'Pushed' });
      await google.settled();
      assert.deepEqual(
        received.map((headers) => [headers['x-goog-resource-state'], headers['x-goog-channel-token']]),
        [
          ['sync', 'channel-secret'],
          ['exists', 'channel-secret'],
        ],
      );

      await provider.push!.stop(account, channel);
      assert.deepEqual(google.channels.open(), []);
      await provider.push!.stop(account, channel);
      assert.equal(google.counts.count({ kind: 'stop' }), 2);
      google.calendars.changeEvent(primaryId, 'standup', { summary: 'Unheard' });
      await google.settled();
      assert.equal(received.length, 2, 'a stopped channel hears nothing');
    });

    it('answers with the codes of reads when Google refuses a watch', async () => {
      const asked = {
        channelId: 'chn-2',
        address,
        token: 't',
        expiresAt: clock.now().add({ hours: 1 }).epochMilliseconds,
      };
      const missing = { ...calendar(primaryId), providerCalendarId: 'missing@example.com' };
      await rejectsWith(provider.push!.watch(connected(), missing, asked), 'not_found', { status: 404 });
      await rejectsWith(
        provider.push!.watch(connected(), calendar(primaryId), {
          ...asked,
          address: 'http://receiver.example/hooks',
        }),
        'invalid_request',
        { status: 400 },
      );
      google.inject({ status: 503, match: /\/channels\/stop/ });
      await rejectsWith(
        provider.push!.stop(connected(), { channelId: 'chn-x', resourceId: 'r', expiresAt: 0 }),
        'provider_unavailable',
        { status: 503 },
      );
    });

    it('refreshes the access token for a watch after a 401', async () => {
      const account = connected();
      google.oauth.expireAccessTokens();
      const expiresAt = clock.now().add({ hours: 1 }).epochMilliseconds;
      const channel = await provider.push!.watch(account, calendar(primaryId), {
        channelId: 'chn-3',
        address,
        token: 't',
        expiresAt,
      });
      assert.equal(channel.channelId, 'chn-3');
      assert.equal(account.saved.length, 1);
      await provider.push!.stop(account, channel);
    });
  });
});

describe('Google Calendar sync against hostile answers', () => {
  const clock = new TestClock('2026-10-20T12:00:00Z');
  const apiBaseUrl = 'https://calendar.test/calendar/v3';
  const account: AccountAccess<CredentialsOf<'google'>> = {
    accountKey: 'acc_hostile',
    credentials: {
      kind: 'google',
      accessToken: 'a',
      refreshToken: 'r',
      expiresAt: clock.now().add({ hours: 1 }).epochMilliseconds,
    },
    saveCredentials: async () => {},
  };
  const calendar: ProviderCalendar = {
    providerCalendarId: 'c@example.com',
    name: 'C',
    primary: false,
    access: 'owner',
  };
  /** A provider whose every request gets `answer`; `calls` counts them. */
  const scripted = (answer: (url: URL) => Response) => {
    const calls: URL[] = [];
    const fetch = (async (input: string | URL) => {
      const url = new URL(String(input));
      calls.push(url);
      return answer(url);
    }) as typeof globalThis.fetch;
    const provider = createGoogleProvider({
      http: new ProviderHttp({ fetch, sleep: async () => {} }),
      config: googleConfig({
        clientId: 'id',
        clientSecret: 'secret',
        redirectUri: 'https://svc.test/cb',
        apiBaseUrl,
      }),
      clock,
    });
    return { provider, calls };
  };
  const page = (body: object, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify({ kind: 'calendar#events', ...body }), {
      headers: { 'content-type': 'application/json', ...headers },
    });
  const syncOnce = (provider: ReturnType<typeof createGoogleProvider>) =>
    drain(
      provider.sync!.syncCalendar(account, calendar, {
        horizon: window,
        knownVersions: async () => new Map(),
      }),
    );
  const event = (n: number) => ({
    id: `e${n}`,
    etag: `"${n}"`,
    start: { date: '2026-10-21' },
    end: { date: '2026-10-22' },
  });

  it('refuses a page with more items than asked for', async () => {
    const { provider } = scripted(() =>
      page({ items: Array.from({ length: 251 }, (_, n) => event(n)), nextSyncToken: 's' }),
    );
    await rejectsWith(syncOnce(provider), 'provider_unavailable', { reason: 'bad_response' });
  });

  it('refuses a page larger than a sync page may be, and one that is not JSON', async () => {
    const large = scripted(() => page({ items: [] }, { 'content-length': String(17 * 1024 * 1024) }));
    await rejectsWith(syncOnce(large.provider), 'payload_too_large', { reason: 'too_large' });
    const garbled = scripted(() => new Response('{"items": ['));
    await rejectsWith(syncOnce(garbled.provider), 'provider_unavailable', { reason: 'bad_response' });
  });

  it('stops a listing that pages on forever', async () => {
    const { provider, calls } = scripted(() => page({ items: [event(1)], nextPageToken: 'again' }));
    await rejectsWith(syncOnce(provider), 'payload_too_large', { reason: 'too_large' });
    assert.equal(calls.length, 200);
  });

  it('versions items without an etag by their content', async () => {
    const bare = { id: 'e1', start: { date: '2026-10-21' }, end: { date: '2026-10-22' } };
    const versionOf = async (summary: string) => {
      const { provider } = scripted(() => page({ items: [{ ...bare, summary }], nextSyncToken: 's' }));
      return (await syncOnce(provider))[0]?.upserts[0]?.version;
    };
    const [a, again, b] = [await versionOf('a'), await versionOf('a'), await versionOf('b')];
    assert.equal(a, again);
    assert.notEqual(a, b);
  });

  it('keeps the expiry Google gives a channel when it is sooner than asked, never a later one', async () => {
    const asked = clock.now().add({ hours: 2 }).epochMilliseconds;
    const watchWith = async (expiration: unknown, resourceId: unknown = 'res') => {
      const { provider } = scripted(() =>
        Response.json({ kind: 'api#channel', id: 'chn', resourceId, expiration }),
      );
      return provider.push!.watch(account, calendar, {
        channelId: 'chn',
        address: 'https://svc.test/hook',
        token: 't',
        expiresAt: asked,
      });
    };
    const sooner = asked - 3_600_000;
    assert.equal((await watchWith(String(sooner))).expiresAt, sooner);
    assert.equal((await watchWith(String(asked + 3_600_000))).expiresAt, asked);
    assert.equal((await watchWith(undefined)).expiresAt, asked);
    await rejectsWith(watchWith(String(sooner), null), 'provider_unavailable', {
      reason: 'bad_response',
    });
  });
});
