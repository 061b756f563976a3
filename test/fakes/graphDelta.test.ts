/** The fake Graph's delta queries, request counts and change notifications, over plain HTTP. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { FakeGraph, type FakeGraphUserSeed } from './graph.ts';

const window = 'startDateTime=2026-06-01T00:00:00Z&endDateTime=2026-07-01T00:00:00Z';

function mailbox(): FakeGraphUserSeed[] {
  const single = (day: number) => ({
    id: `single-${day}`,
    subject: `Meeting ${day}`,
    start: `2026-06-${String(day).padStart(2, '0')}T09:00:00`,
    end: `2026-06-${String(day).padStart(2, '0')}T10:00:00`,
    zone: 'Europe/Berlin',
  });
  return [
    {
      email: 'alice@example.com',
      calendars: [
        {
          id: 'work',
          name: 'Work',
          isDefaultCalendar: true,
          events: [
            ...[2, 4, 8, 16, 23].map(single),
            {
              id: 'standup',
              subject: 'Standup',
              start: '2026-06-10T08:30:00',
              end: '2026-06-10T08:45:00',
              zone: 'Europe/Berlin',
              repeats: { pattern: { type: 'daily', interval: 1 }, count: 4 },
            },
          ],
        },
        {
          id: 'home',
          name: 'Home',
          events: [{ id: 'dentist', start: '2026-06-05', end: '2026-06-06', isAllDay: true }],
        },
      ],
    },
  ];
}

let graph: FakeGraph;
let token: string;

beforeEach(async () => {
  graph = await FakeGraph.start({ users: mailbox() });
  token = graph.issueTokens('alice@example.com').accessToken;
});
afterEach(() => graph.close());

async function call(
  url: string,
  init: { method?: string; body?: unknown; prefer?: string } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(url.startsWith('http') ? url : `${graph.apiBaseUrl}${url}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.prefer === undefined ? {} : { prefer: init.prefer }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : JSON.parse(text), headers: response.headers };
}

type Entry = Record<string, unknown> & { id: string };

/** Follows a round's nextLinks to its deltaLink: the entries, the pages' sizes and the deltaLink. */
async function round(
  first: string,
  prefer?: string,
): Promise<{ entries: Entry[]; sizes: number[]; deltaLink: string }> {
  const entries: Entry[] = [];
  const sizes: number[] = [];
  let url: string | undefined = first;
  while (url !== undefined) {
    const page = await call(url, prefer === undefined ? {} : { prefer });
    assert.equal(page.status, 200, JSON.stringify(page.body));
    const value = page.body.value as Entry[];
    entries.push(...value);
    sizes.push(value.length);
    const next = page.body['@odata.nextLink'] as string | undefined;
    const delta = page.body['@odata.deltaLink'] as string | undefined;
    assert.ok(
      (next === undefined) !== (delta === undefined),
      'a page has a nextLink or a deltaLink, not both',
    );
    if (delta !== undefined) return { entries, sizes, deltaLink: delta };
    url = next;
  }
  throw new Error('unreachable');
}

describe('delta on a calendar view', () => {
  test('the first round pages through every instance and ends with a deltaLink; links carry only opaque tokens', async () => {
    const first = await round(`/me/calendars/work/calendarView/delta?${window}`, 'odata.maxpagesize=4');
    assert.deepEqual(first.sizes, [4, 4, 1]);
    assert.equal(first.entries.length, 9);
    assert.ok(first.entries.every((entry) => entry.type !== 'seriesMaster'));
    assert.equal(first.entries.filter((entry) => entry.seriesMasterId === 'standup').length, 4);
    const link = new URL(first.deltaLink);
    assert.deepEqual([...link.searchParams.keys()], ['$deltatoken']);
    assert.equal(link.pathname, '/v1.0/me/calendars/work/calendarView/delta');

    // Nothing changed: an empty round and a new deltaLink.
    const again = await round(first.deltaLink);
    assert.deepEqual(again.entries, []);
    assert.notEqual(again.deltaLink, first.deltaLink);
  });

  test('after a create, an update, a delete and an occurrence exception: only those, paged', async () => {
    const { deltaLink } = await round(`/me/calendars/work/calendarView/delta?${window}`);
    const created = await call('/me/calendars/work/events', {
      method: 'POST',
      body: {
        subject: 'New',
        start: { dateTime: '2026-06-20T14:00:00', timeZone: 'UTC' },
        end: { dateTime: '2026-06-20T15:00:00', timeZone: 'UTC' },
      },
    });
    assert.equal(created.status, 201);
    assert.equal(
      (await call('/me/events/single-4', { method: 'PATCH', body: { subject: 'Moved' } })).status,
      200,
    );
    assert.equal((await call('/me/events/single-8', { method: 'DELETE' })).status, 204);
    assert.equal(
      (await call('/me/events/standup_20260611', { method: 'PATCH', body: { subject: 'Long standup' } }))
        .status,
      200,
    );

    const changes = await round(deltaLink, 'odata.maxpagesize=2');
    assert.deepEqual(changes.sizes, [2, 2]);
    const byId = new Map(changes.entries.map((entry) => [entry.id, entry]));
    assert.deepEqual(
      [...byId.keys()].sort(),
      [created.body.id, 'single-4', 'single-8', 'standup_20260611'].sort(),
    );
    assert.equal(byId.get('single-4')?.subject, 'Moved');
    assert.deepEqual(byId.get('single-8'), {
      '@odata.type': '#microsoft.graph.event',
      id: 'single-8',
      '@removed': { reason: 'deleted' },
    });
    assert.equal(byId.get('standup_20260611')?.type, 'exception');

    // A series change reaches every instance in the view, none of the masters.
    graph.changeBehindTheBack('standup', { subject: 'Daily' });
    const series = await round(changes.deltaLink);
    assert.deepEqual(series.entries.map((entry) => entry.id).sort(), [
      'standup_20260610',
      'standup_20260612',
      'standup_20260613',
    ]);
  });

  test('Prefer: outlook.timezone and odata.maxpagesize are applied; /me/calendarView/delta is the default calendar', async () => {
    const page = await call(`/me/calendarView/delta?${window}`, {
      prefer: 'outlook.timezone="America/New_York", odata.maxpagesize=1',
    });
    assert.equal(
      page.headers.get('preference-applied'),
      'outlook.timezone="America/New_York", odata.maxpagesize=1',
    );
    const [first] = page.body.value as Entry[];
    assert.deepEqual(first?.start, { dateTime: '2026-06-02T03:00:00.0000000', timeZone: 'America/New_York' });
    assert.match(String(page.body['@odata.nextLink']), /\/me\/calendarView\/delta\?\$skiptoken=/);
  });

  test('a missing window is the calendarView error', async () => {
    const page = await call('/me/calendars/work/calendarView/delta');
    assert.equal(page.status, 400);
    assert.equal((page.body.error as { code: string }).code, 'ErrorInvalidParameter');
  });
});

describe('delta token expiry', () => {
  test("an invalidated calendar's tokens answer 410 syncStateNotFound with a Location to start over; others still work", async () => {
    const work = await round(`/me/calendars/work/calendarView/delta?${window}`);
    const home = await round(`/me/calendars/home/calendarView/delta?${window}`);
    const midRound = await call(`/me/calendars/work/calendarView/delta?${window}`, {
      prefer: 'odata.maxpagesize=1',
    });
    graph.invalidateDeltaTokens('work');

    for (const url of [work.deltaLink, midRound.body['@odata.nextLink'] as string]) {
      const gone = await call(url);
      assert.equal(gone.status, 410);
      const error = gone.body.error as { code: string; message: string };
      assert.equal(error.code, 'syncStateNotFound');
      assert.match(error.message, /sync state/i);
      const restart = new URL(gone.headers.get('location')!);
      assert.equal(restart.pathname, '/v1.0/me/calendars/work/calendarView/delta');
      assert.equal(restart.searchParams.get('startDateTime'), '2026-06-01T00:00:00Z');
    }
    assert.equal((await call(home.deltaLink)).status, 200);

    graph.invalidateDeltaTokens();
    assert.equal((await call(home.deltaLink)).status, 410);
    assert.equal(
      (await call(`${graph.apiBaseUrl}/me/calendars/home/calendarView/delta?$deltatoken=forged`)).status,
      410,
    );
  });
});

describe('request counts', () => {
  test('every request is counted by method and kind until reset', async () => {
    await call('/me/calendars');
    await round(`/me/calendars/work/calendarView/delta?${window}`, 'odata.maxpagesize=5');
    await call(`/me/calendars/work/calendarView?${window}`);
    await call('/me/events/single-2');
    await call('/me/events/single-2', { method: 'PATCH', body: { subject: 'x' } });
    await call('/subscriptions');
    graph.issueTokens('alice@example.com');
    assert.deepEqual(graph.requestCounts(), {
      'GET calendars': 1,
      'GET delta': 2,
      'GET calendarView': 1,
      'GET event': 1,
      'PATCH write': 1,
      'GET subscription': 1,
    });
    assert.equal(graph.requestCount(), 7);
    assert.equal(graph.requestCount({ kind: 'delta' }), 2);
    assert.equal(graph.requestCount({ method: 'GET' }), 6);

    graph.resetRequestCounts();
    assert.equal(graph.requestCount(), 0);
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: 'unknown',
      client_id: 'x',
    });
    await fetch(`${graph.url}/common/oauth2/v2.0/token`, { method: 'POST', body: form });
    assert.deepEqual(graph.requestCounts(), { 'POST token': 1 });
  });
});

describe('change notifications', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(() => receiver.close());

  const inMinutes = (minutes: number) => Temporal.Now.instant().add({ minutes }).toString();
  const subscribe = (extra: Record<string, unknown> = {}) =>
    call('/subscriptions', {
      method: 'POST',
      body: {
        changeType: 'created,updated,deleted',
        notificationUrl: `${receiver.url}/hooks`,
        lifecycleNotificationUrl: `${receiver.url}/lifecycle`,
        resource: 'me/calendars/work/events',
        expirationDateTime: inMinutes(60),
        clientState: 'secret-state',
        ...extra,
      },
    });

  test('a subscription is created after the handshake on both endpoints; changes are notified with clientState', async () => {
    const created = await subscribe();
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(receiver.validations, ['/hooks', '/lifecycle']);
    const id = created.body.id as string;
    assert.equal(created.body.clientState, 'secret-state');

    await call('/me/events/single-2', { method: 'PATCH', body: { subject: 'Changed' } });
    await call('/me/calendars/home/events', {
      method: 'POST',
      body: {
        start: { dateTime: '2026-06-20T14:00:00', timeZone: 'UTC' },
        end: { dateTime: '2026-06-20T15:00:00', timeZone: 'UTC' },
      },
    });
    await call('/me/events/single-4', { method: 'DELETE' });
    await graph.settled();
    const notes = receiver.received.map((delivery) => delivery.body.value[0]!);
    assert.deepEqual(
      notes.map((note) => [note.changeType, (note.resourceData as { id: string }).id]),
      [
        ['updated', 'single-2'],
        ['deleted', 'single-4'],
      ],
      'the other calendar is not subscribed',
    );
    for (const note of notes) {
      assert.equal(note.subscriptionId, id);
      assert.equal(note.clientState, 'secret-state');
      assert.equal(typeof note.tenantId, 'string');
      assert.equal(note.subscriptionExpirationDateTime, created.body.expirationDateTime);
      assert.match(String(note.resource), /^Users\/.+\/Events\/single-/);
    }
  });

  test('a failing handshake is refused with 400 and nothing is subscribed', async () => {
    receiver.echo = 'wrong';
    const refused = await subscribe();
    assert.equal(refused.status, 400);
    assert.equal((refused.body.error as { code: string }).code, 'ValidationError');
    const unreachable = await subscribe({ notificationUrl: 'http://127.0.0.1:1/hooks' });
    assert.equal(unreachable.status, 400);
    assert.equal((await subscribe({ notificationUrl: 'http://example.com/hooks' })).status, 400);
    assert.deepEqual(graph.subscriptions(), []);
  });

  test('renewal within the events maximum, delete, expiry and lifecycle notifications', async () => {
    const id = (await subscribe()).body.id as string;
    const tooLong = await call(`/subscriptions/${id}`, {
      method: 'PATCH',
      body: { expirationDateTime: inMinutes(10_081) },
    });
    assert.equal(tooLong.status, 400);
    const renewedTo = inMinutes(10_000);
    const renewed = await call(`/subscriptions/${id}`, {
      method: 'PATCH',
      body: { expirationDateTime: renewedTo },
    });
    assert.equal(renewed.status, 200);
    assert.equal(renewed.body.expirationDateTime, renewedTo);

    for (const event of ['reauthorizationRequired', 'missed', 'subscriptionRemoved'] as const)
      graph.sendLifecycleNotification(id, event);
    await graph.settled();
    const lifecycle = receiver.received.filter((delivery) => delivery.path === '/lifecycle');
    assert.deepEqual(
      lifecycle.map((delivery) => delivery.body.value[0]!.lifecycleEvent),
      ['reauthorizationRequired', 'missed', 'subscriptionRemoved'],
    );
    assert.equal(lifecycle[0]!.body.value[0]!.clientState, 'secret-state');
    assert.equal((await call(`/subscriptions/${id}`)).status, 404, 'subscriptionRemoved removes it');

    // An expired subscription and a deleted one notify no more.
    const expiring = (await subscribe()).body.id as string;
    const deleted = (await subscribe({ resource: '/me/events' })).body.id as string;
    graph.expireSubscription(expiring);
    assert.equal((await call(`/subscriptions/${deleted}`, { method: 'DELETE' })).status, 204);
    receiver.received.length = 0;
    graph.changeBehindTheBack('single-2', { subject: 'Again' });
    await graph.settled();
    assert.deepEqual(receiver.received, []);
  });
});
