/**
 * The fake Google's incremental sync, request counts and push channels, over plain HTTP, as
 * Google documents them (guides/sync, guides/push, events.list, events.watch, channels.stop),
 * so that the sync engine's tests can rely on them.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { GoogleErrorBody, GoogleEvent, GoogleEventList } from '../../src/providers/google/wire.ts';
import { TestClock } from '../helpers/clock.ts';
import { FakeGoogle } from './google.ts';

type Answer = GoogleEventList & GoogleErrorBody;

const calendarId = 'team@example.com';
const path = `/calendars/${encodeURIComponent(calendarId)}/events`;
const single = (id: string, day: number): GoogleEvent => ({
  id,
  summary: id,
  start: { dateTime: `2026-11-${String(day).padStart(2, '0')}T10:00:00Z` },
  end: { dateTime: `2026-11-${String(day).padStart(2, '0')}T11:00:00Z` },
});

describe('fake Google sync and push', () => {
  let google: FakeGoogle;
  let bearer: string;
  const clock = new TestClock('2026-11-01T00:00:00Z');
  const call = async (method: string, target: string, body?: unknown) => {
    const response = await fetch(`${google.url}/calendar/v3${target}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Answer };
  };
  const get = (target: string) => call('GET', target);
  /** Every page of a listing: the items, and what the pages carried. */
  const listAll = async (query: string) => {
    const pages: Answer[] = [];
    let pageToken: string | undefined;
    do {
      const suffix = pageToken === undefined ? '' : `&pageToken=${encodeURIComponent(pageToken)}`;
      const page = await get(`${path}?${query}${suffix}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      pages.push(page.body);
      pageToken = page.body.nextPageToken;
    } while (pageToken !== undefined);
    return { items: pages.flatMap((page) => page.items ?? []), pages };
  };

  before(async () => {
    google = await FakeGoogle.start({
      clock,
      calendars: [
        {
          id: calendarId,
          summary: 'Team',
          timeZone: 'UTC',
          accessRole: 'owner',
          events: [
            ...[1, 2, 3, 4, 5].map((day) => single(`single${day}`, day)),
            {
              id: 'weekly',
              summary: 'Weekly',
              start: { dateTime: '2026-11-02T09:00:00', timeZone: 'UTC' },
              end: { dateTime: '2026-11-02T09:30:00', timeZone: 'UTC' },
              recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
            },
          ],
        },
        { id: 'other@example.com', summary: 'Other', timeZone: 'UTC', accessRole: 'owner' },
      ],
    });
    bearer = google.oauth.issue().accessToken;
  });
  after(() => google.close());

  it('pages a full sync with nextSyncToken on the last page only, then lists each kind of change once', async () => {
    const full = await listAll('maxResults=2');
    assert.equal(full.pages.length, 3);
    assert.deepEqual(
      full.pages.map((page) => typeof page.nextSyncToken),
      ['undefined', 'undefined', 'string'],
    );
    assert.deepEqual(full.items.map((event) => event.id).sort(), [
      'single1',
      'single2',
      'single3',
      'single4',
      'single5',
      'weekly',
    ]);

    const nothing = await get(`${path}?syncToken=${full.pages.at(-1)?.nextSyncToken}`);
    assert.deepEqual(nothing.body.items, []);
    assert.equal(typeof nothing.body.nextSyncToken, 'string');

    assert.equal((await call('POST', path, single('created1', 9))).status, 200);
    assert.equal((await call('PATCH', `${path}/single2`, { summary: 'renamed' })).status, 200);
    assert.equal((await call('DELETE', `${path}/single3`)).status, 204);
    google.calendars.changeEvent(calendarId, 'weekly_20261109T090000Z', { summary: 'moved by someone' });
    google.calendars.deleteEvent(calendarId, 'single4');

    const changes = await listAll(`syncToken=${nothing.body.nextSyncToken}&maxResults=2`);
    assert.equal(changes.pages.length, 3, 'incremental results are paged too');
    assert.equal(typeof changes.pages.at(-1)?.nextSyncToken, 'string');
    assert.equal(changes.pages[0]?.nextSyncToken, undefined);
    const byId = new Map(changes.items.map((event) => [event.id, event]));
    assert.deepEqual([...byId.keys()].sort(), [
      'created1',
      'single2',
      'single3',
      'single4',
      'weekly_20261109T090000Z',
    ]);
    assert.equal(byId.get('single2')?.summary, 'renamed');
    assert.deepEqual(Object.keys(byId.get('single3') ?? {}).sort(), ['etag', 'id', 'kind', 'status']);
    assert.equal(byId.get('single3')?.status, 'cancelled');
    assert.equal(byId.get('single4')?.status, 'cancelled');
    const exception = byId.get('weekly_20261109T090000Z');
    assert.equal(exception?.recurringEventId, 'weekly');
    assert.equal(exception?.summary, 'moved by someone');

    const caughtUp = await get(`${path}?syncToken=${changes.pages.at(-1)?.nextSyncToken}`);
    assert.deepEqual(caughtUp.body.items, []);
  });

  it('lists a deleted series as its cancelled instances with singleEvents, as its master without', async () => {
    const expanded = await listAll('singleEvents=true');
    const stored = await listAll('singleEvents=false');
    assert.equal((await call('DELETE', `${path}/weekly`)).status, 204);
    const asInstances = await listAll(`singleEvents=true&syncToken=${expanded.pages.at(-1)?.nextSyncToken}`);
    assert.deepEqual(
      asInstances.items.map((event) => [event.id, event.status]),
      [
        ['weekly_20261102T090000Z', 'cancelled'],
        ['weekly_20261109T090000Z', 'cancelled'],
        ['weekly_20261116T090000Z', 'cancelled'],
      ],
    );
    const asMaster = await listAll(`syncToken=${stored.pages.at(-1)?.nextSyncToken}`);
    assert.deepEqual(asMaster.items.map((event) => [event.id, event.status]).sort(), [
      ['weekly', 'cancelled'],
      ['weekly_20261109T090000Z', 'cancelled'],
    ]);
  });

  it('keeps a paged listing consistent when the calendar changes between pages', async () => {
    const first = await get(`${path}?maxResults=1`);
    google.calendars.putEvent(calendarId, single('during', 20));
    const rest = await listAll(
      `maxResults=50&pageToken=${encodeURIComponent(first.body.nextPageToken ?? '')}`,
    );
    const seen = [...(first.body.items ?? []), ...rest.items].map((event) => event.id);
    assert.equal(new Set(seen).size, seen.length, 'no item twice');
    assert.ok(!seen.includes('during'), 'the listing is the one taken at its first page');
    const next = await get(`${path}?syncToken=${rest.pages.at(-1)?.nextSyncToken}`);
    assert.deepEqual(
      next.body.items?.map((event) => event.id),
      ['during'],
      'the change made while paging comes with the next sync',
    );
    assert.equal((await get(`${path}?pageToken=made-up`)).status, 400);
  });

  it('refuses the parameters Google forbids with syncToken, and unknown tokens, with 400', async () => {
    const { nextSyncToken } = (await listAll('')).pages.at(-1) ?? {};
    for (const parameter of [
      'timeMin=2026-11-01T00:00:00Z',
      'timeMax=2026-12-01T00:00:00Z',
      'orderBy=updated',
      'q=standup',
      'iCalUID=x%40google.com',
      'updatedMin=2026-11-01T00:00:00Z',
      'privateExtendedProperty=a%3Db',
      'sharedExtendedProperty=a%3Db',
      'showDeleted=false',
    ]) {
      const refused = await get(`${path}?syncToken=${nextSyncToken}&${parameter}`);
      assert.equal(refused.status, 400, parameter);
      assert.equal(
        (refused.body.error?.errors?.[0] as { location?: string } | undefined)?.location,
        parameter.split('=')[0],
      );
    }
    assert.equal(
      (await get(`${path}?syncToken=${nextSyncToken}&showDeleted=true&singleEvents=true`)).status,
      200,
    );
    assert.equal((await get(`${path}?syncToken=made-up`)).status, 400);
    const elsewhere = await get(`/calendars/other%40example.com/events?syncToken=${nextSyncToken}`);
    assert.equal(elsewhere.status, 400, 'a token names its calendar');
  });

  it('answers 410 fullSyncRequired once tokens expire, for one calendar or all, also mid-listing', async () => {
    const mine = (await listAll('')).pages.at(-1)?.nextSyncToken;
    const otherPath = '/calendars/other%40example.com/events';
    const theirs = (await get(otherPath)).body.nextSyncToken;
    google.calendars.expireSyncTokens(calendarId);
    const gone = await get(`${path}?syncToken=${mine}`);
    assert.equal(gone.status, 410);
    assert.deepEqual(gone.body.error?.errors, [
      {
        domain: 'calendar',
        reason: 'fullSyncRequired',
        message: 'Sync token is no longer valid, a full sync is required.',
        locationType: 'parameter',
        location: 'syncToken',
      },
    ]);
    assert.equal(gone.body.error?.code, 410);
    assert.equal(gone.body.error?.message, 'Sync token is no longer valid, a full sync is required.');
    assert.equal((await get(`${otherPath}?syncToken=${theirs}`)).status, 200, 'other calendars keep theirs');

    const fresh = (await listAll('')).pages.at(-1)?.nextSyncToken;
    assert.equal((await get(`${path}?syncToken=${fresh}`)).status, 200, 'a full sync gives a working token');
    google.calendars.putEvent(calendarId, single('page1', 21));
    google.calendars.putEvent(calendarId, single('page2', 22));
    const firstPage = await get(`${path}?syncToken=${fresh}&maxResults=1`);
    google.calendars.expireSyncTokens();
    const page = `${path}?syncToken=${fresh}&maxResults=1&pageToken=${firstPage.body.nextPageToken}`;
    assert.equal((await get(page)).status, 410, 'the next page of an incremental listing repeats its token');
    assert.equal((await get(`${otherPath}?syncToken=${theirs}`)).status, 410);
  });

  it('counts every request by kind and method, faulted ones included', async () => {
    google.counts.reset();
    assert.equal(google.counts.count(), 0);
    await get('/users/me/calendarList');
    await get(path);
    await get(`${path}/single1`);
    await call('PATCH', `${path}/single1`, { summary: 'counted' });
    google.inject({ status: 503 });
    assert.equal((await get(path)).status, 503);
    await fetch(`${google.url}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'x' }) });
    assert.deepEqual(google.counts.byKind(), {
      calendarList: 1,
      'events.list': 2,
      'events.get': 1,
      write: 1,
      token: 1,
    });
    assert.equal(google.counts.count({ kind: 'write', method: 'PATCH' }), 1);
    assert.equal(google.counts.count({ method: 'GET' }), 4);
    assert.equal(google.counts.count(), 6);
    google.counts.reset();
    assert.deepEqual(google.counts.byKind(), {});
  });

  describe('push channels', () => {
    const received: IncomingHttpHeaders[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        assert.equal(body, '', 'notifications have an empty body');
        received.push(req.headers);
        res.writeHead(200).end();
      });
    });
    let address: string;
    const states = (channelId: string) =>
      received
        .filter((headers) => headers['x-goog-channel-id'] === channelId)
        .map((headers) => headers['x-goog-resource-state']);

    before(async () => {
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      address = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/google`;
    });
    after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

    it('sends sync on creation, then one notification per change, with Google headers', async () => {
      const expiration = clock.now().add({ hours: 1 }).epochMilliseconds;
      const watch = await call('POST', `${path}/watch`, {
        id: 'channel-1',
        type: 'web_hook',
        address,
        token: 'secret-token',
        expiration: String(expiration),
      });
      assert.equal(watch.status, 200);
      const channel = watch.body as unknown as Record<string, string>;
      assert.equal(channel.kind, 'api#channel');
      assert.equal(channel.id, 'channel-1');
      assert.equal(channel.expiration, String(expiration));
      assert.equal(channel.resourceUri, `${google.url}/calendar/v3${path}?alt=json`);
      assert.equal(typeof channel.resourceId, 'string');
      await google.settled();

      await call('PATCH', `${path}/single1`, { summary: 'pushed' });
      await call('DELETE', `${path}/single5`);
      google.calendars.putEvent('other@example.com', single('elsewhere', 3));
      google.calendars.changeEvent(calendarId, 'single2', { summary: 'by someone else' });
      await google.settled();

      const mine = received.filter((headers) => headers['x-goog-channel-id'] === 'channel-1');
      assert.deepEqual(states('channel-1'), ['sync', 'exists', 'exists', 'exists']);
      const numbers = mine.map((headers) => Number(headers['x-goog-message-number']));
      assert.equal(numbers[0], 1, 'the sync message is number 1');
      assert.ok(
        numbers.every((number, index) => index === 0 || number > numbers[index - 1]!),
        `increasing: ${numbers}`,
      );
      for (const headers of mine) {
        assert.equal(headers['x-goog-channel-token'], 'secret-token');
        assert.equal(headers['x-goog-resource-id'], channel.resourceId);
        assert.equal(headers['x-goog-resource-uri'], channel.resourceUri);
        assert.equal(headers['x-goog-channel-expiration'], new Date(expiration).toUTCString());
      }
      assert.deepEqual(
        google.channels.deliveries.map((delivery) => delivery.status),
        mine.map(() => 200),
      );
    });

    it('refuses http addresses off loopback, a taken channel id, and stops channels (404 when unknown)', async () => {
      const insecure = await call('POST', `${path}/watch`, {
        id: 'channel-2',
        type: 'web_hook',
        address: 'http://receiver.example/hooks',
      });
      assert.equal(insecure.status, 400);
      assert.equal(insecure.body.error?.errors?.[0]?.reason, 'push.webhookUrlNotHttps');
      const taken = await call('POST', `${path}/watch`, { id: 'channel-1', type: 'web_hook', address });
      assert.equal(taken.status, 400);

      const resourceId = google.channels.open().find((channel) => channel.id === 'channel-1')?.resourceId;
      assert.equal(
        (await call('POST', '/channels/stop', { id: 'channel-1', resourceId: 'wrong' })).status,
        404,
      );
      assert.equal((await call('POST', '/channels/stop', { id: 'channel-1', resourceId })).status, 204);
      assert.equal((await call('POST', '/channels/stop', { id: 'channel-1', resourceId })).status, 404);
      const before = states('channel-1').length;
      google.calendars.changeEvent(calendarId, 'single1', { summary: 'after stop' });
      await google.settled();
      assert.equal(states('channel-1').length, before, 'a stopped channel hears nothing');
      assert.equal(google.counts.count({ kind: 'stop' }), 3);
    });

    it('ends channels at their expiration on the fake clock, or when expired by the test', async () => {
      for (const id of ['short', 'long']) {
        const ttl = id === 'short' ? { minutes: 10 } : { hours: 48 };
        const expiration = String(clock.now().add(ttl).epochMilliseconds);
        assert.equal(
          (await call('POST', `${path}/watch`, { id, type: 'web_hook', address, expiration })).status,
          200,
        );
      }
      clock.advance({ minutes: 11 });
      google.calendars.changeEvent(calendarId, 'single1', { summary: 'later' });
      await google.settled();
      assert.deepEqual(states('short'), ['sync']);
      assert.deepEqual(states('long'), ['sync', 'exists']);
      google.channels.expire('long');
      google.calendars.changeEvent(calendarId, 'single1', { summary: 'later still' });
      await google.settled();
      assert.deepEqual(states('long'), ['sync', 'exists']);
      assert.deepEqual(google.channels.open(), []);
    });

    it('tells channels not_exists when the calendar goes away', async () => {
      const watched = await call('POST', '/calendars/other%40example.com/events/watch', {
        id: 'other-channel',
        type: 'web_hook',
        address,
      });
      assert.equal(watched.status, 200);
      google.calendars.removeCalendar('other@example.com');
      await google.settled();
      assert.deepEqual(states('other-channel'), ['sync', 'not_exists']);
      assert.equal((await get('/calendars/other%40example.com/events')).status, 404);
    });
  });
});
