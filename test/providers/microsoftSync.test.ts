/** The Graph adapter's delta sync and webhook subscriptions, over HTTP against the fake Graph. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ProviderCalendar, ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import type { TimeWindow } from '../../src/domain/window.ts';
import { AppError } from '../../src/errors.ts';
import { createMicrosoftProvider } from '../../src/providers/microsoft/adapter.ts';
import { nearWindow } from '../../src/providers/nearWindow.ts';
import type {
  AccountAccess,
  CalendarProvider,
  CredentialsOf,
  SyncBatch,
  SyncedItem,
} from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { alice, sampleUsers } from '../fakes/graph/sampleMailbox.ts';
import { FakeGraph, type FakeGraphUserSeed } from '../fakes/graph.ts';
import { TestClock } from '../helpers/clock.ts';
import { startCountingServer } from '../helpers/countingServer.ts';
import { assertOccurrenceShape } from '../helpers/occurrenceShape.ts';
import { WebhookReceiver } from '../helpers/webhookReceiver.ts';

let graph: FakeGraph;
let token: string;

async function startGraph(users: FakeGraphUserSeed[] = sampleUsers(), maxPageSize = 10): Promise<void> {
  graph = await FakeGraph.start({ users, maxPageSize });
  token = graph.issueTokens(alice).accessToken;
}
beforeEach(() => startGraph());
afterEach(() => graph.close());

// The fake checks subscription expiry against the real time.
const clock = () => new TestClock(Temporal.Now.instant().toString());

function provider(fetch: typeof globalThis.fetch = globalThis.fetch): CalendarProvider<'microsoft'> {
  const http = new ProviderHttp({ baseDelayMs: 1, sleep: async () => {}, fetch });
  return createMicrosoftProvider({ http, config: graph.config(), clock: clock() });
}

const account: () => AccountAccess<CredentialsOf<'microsoft'>> = () => ({
  accountKey: 'acc_alice',
  credentials: {
    kind: 'microsoft',
    accessToken: token,
    refreshToken: 'unused',
    expiresAt: Temporal.Now.instant().add({ hours: 1 }).epochMilliseconds,
  },
  saveCredentials: async () => assert.fail('the token is fresh'),
});

const calendar = (providerCalendarId: string): ProviderCalendar => ({
  providerCalendarId,
  name: providerCalendarId,
  primary: false,
  access: 'owner',
});

const window = (start: string, end: string): TimeWindow => ({
  start: Temporal.Instant.from(start),
  end: Temporal.Instant.from(end),
});
const june = window('2026-06-01T00:00:00Z', '2026-07-01T00:00:00Z');
const horizon = window('2026-05-01T00:00:00Z', '2026-12-01T00:00:00Z');

async function sync(
  calendarId: string,
  state?: string,
  using = provider(),
  range = horizon,
): Promise<SyncBatch[]> {
  const batches: SyncBatch[] = [];
  const request = { horizon: range, knownVersions: async () => new Map<string, string>(), state };
  for await (const batch of using.sync!.syncCalendar(account(), calendar(calendarId), request))
    batches.push(batch);
  return batches;
}

/** Only the last batch carries the state, and every batch says whether the sync is full. */
function assertRound(batches: SyncBatch[], full: boolean): string {
  assert.ok(batches.length > 0);
  assert.deepEqual(
    batches.map((batch) => [batch.full, batch.nextState !== undefined]),
    batches.map((_, index) => [full, index === batches.length - 1]),
  );
  return batches.at(-1)!.nextState!;
}

const upserted = (batches: SyncBatch[]): SyncedItem[] => batches.flatMap((batch) => batch.upserts);
const keys = (batches: SyncBatch[]) => upserted(batches).map((item) => item.key);

/** The copy a caller keeps: applied batch by batch, a full sync replacing everything. */
function apply(copy: Map<string, SyncedItem>, batches: SyncBatch[]): Map<string, SyncedItem> {
  const next = batches[0]?.full ? new Map<string, SyncedItem>() : new Map(copy);
  for (const batch of batches) {
    for (const item of batch.upserts) next.set(item.key, item);
    for (const key of batch.removals) next.delete(key);
  }
  return next;
}

const order = (a: ProviderOccurrence, b: ProviderOccurrence) =>
  `${a.providerEventId} ${a.recurrenceId ?? ''}`.localeCompare(
    `${b.providerEventId} ${b.recurrenceId ?? ''}`,
  );

/** A request to the fake's API as alice (for changes made elsewhere). */
async function change(path: string, method: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${graph.apiBaseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(response.ok, `${method} ${path}: ${response.status}`);
  const text = await response.text();
  return text === '' ? {} : JSON.parse(text);
}

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<AppError> {
  const error = await promise.then(
    () => assert.fail(`expected ${code}`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, code, error.message);
  return error;
}

describe('full sync', () => {
  test('pages through the view a batch per page, the deltaLink only with the last', async () => {
    const batches = await sync('cal-busy', undefined, provider(), june);
    const state = assertRound(batches, true);
    assert.deepEqual(
      batches.map((batch) => batch.upserts.length),
      [10, 10, 5],
    );
    assert.deepEqual(
      keys(batches),
      Array.from({ length: 25 }, (_, i) => `busy-${i + 1}`),
    );
    assert.match(state, /\/v1\.0\/me\/calendars\/cal-busy\/calendarView\/delta\?\$deltatoken=/);
    for (const item of upserted(batches)) {
      assert.match(item.version, /./);
      for (const occurrence of item.occurrences) assertOccurrenceShape(occurrence);
    }

    const requests = graph.apiRequests();
    assert.deepEqual(graph.requestCounts(), { 'GET delta': 3 });
    // The horizon a day wider each side, as listEvents asks; pages of a few hundred asked for.
    assert.equal(requests[0]?.query.get('startDateTime'), '2026-05-31T00:00:00Z');
    assert.equal(requests[0]?.query.get('endDateTime'), '2026-07-02T00:00:00Z');
    for (const request of requests) assert.match(request.prefer ?? '', /odata\.maxpagesize=200/);
  });

  test('items keep only the occurrences near the horizon; a calendar with nothing in it ends in one batch', async () => {
    const batches = await sync(
      'cal-busy',
      undefined,
      provider(),
      window('2026-06-03T00:00:00Z', '2026-06-05T00:00:00Z'),
    );
    // 06-02 and 06-05 are listed by Graph for the day of margin and kept as items, without occurrences.
    assert.deepEqual(
      upserted(batches).map((item) => [item.key, item.occurrences.length]),
      [
        ['busy-2', 0],
        ['busy-3', 1],
        ['busy-4', 1],
        ['busy-5', 0],
      ],
    );

    const empty = await sync('cal-holidays');
    assertRound(empty, true);
    assert.deepEqual(empty, [
      { full: true, upserts: [], removals: [], skipped: [], nextState: empty[0]?.nextState },
    ]);
  });

  test('a page larger than a batch is split into batches of 200', async () => {
    await graph.close();
    const many = Array.from({ length: 450 }, (_, i) => ({
      id: `many-${i}`,
      start: Temporal.PlainDateTime.from('2026-06-01T00:00:00')
        .add({ minutes: i * 30 })
        .toString(),
      end: Temporal.PlainDateTime.from('2026-06-01T00:20:00')
        .add({ minutes: i * 30 })
        .toString(),
    }));
    await startGraph([{ email: alice, calendars: [{ id: 'cal-many', name: 'Many', events: many }] }], 1000);
    // A Graph that does not honour odata.maxpagesize.
    const ignoringPageSize: typeof fetch = (url, init) => {
      const headers = { ...(init?.headers as Record<string, string>) };
      headers.prefer = headers.prefer?.replace(/, odata\.maxpagesize=\d+/, '') ?? '';
      return fetch(url, { ...init, headers });
    };
    const batches = await sync('cal-many', undefined, provider(ignoringPageSize), june);
    assertRound(batches, true);
    assert.deepEqual(
      batches.map((batch) => batch.upserts.length),
      [200, 200, 50],
    );
    assert.equal(graph.requestCount({ kind: 'delta' }), 1);
  });

  test("occurrences from a full sync are listEvents' occurrences, window by window", async () => {
    const copy = apply(new Map(), await sync('cal-primary'));
    const listing = provider();
    const windows = [
      june,
      window('2026-06-30T00:00:00Z', '2026-07-02T00:00:00Z'),
      window('2026-10-19T00:00:00Z', '2026-11-16T00:00:00Z'),
      window('2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z'),
    ];
    for (const range of windows) {
      const live = await listing.listEvents(account(), calendar('cal-primary'), range);
      const copied = [...copy.values()]
        .flatMap((item) => item.occurrences)
        .filter((occurrence) => nearWindow(occurrence, range));
      assert.ok(live.occurrences.length > 0, `${range.start}: something to compare`);
      assert.deepEqual(copied.sort(order), live.occurrences.sort(order), `${range.start}`);
    }
  });
});

describe('incremental sync', () => {
  test('one change is one request and one batch with just that item', async () => {
    const state = assertRound(await sync('cal-primary'), true);
    graph.resetRequestCounts();
    const changeKey = graph.changeBehindTheBack('evt-planning', { subject: 'Planning (new room)' });

    const batches = await sync('cal-primary', state);
    assert.deepEqual(graph.requestCounts(), { 'GET delta': 1 });
    const next = assertRound(batches, false);
    assert.notEqual(next, state);
    assert.deepEqual(keys(batches), ['evt-planning']);
    const [item] = upserted(batches);
    assert.equal(item?.version, changeKey);
    assert.equal(item?.occurrences[0]?.title, 'Planning (new room)');
    assert.deepEqual(batches[0]?.removals, []);

    // Nothing changed since: an empty batch with a new state.
    const quiet = await sync('cal-primary', next);
    assert.deepEqual(
      quiet.map((batch) => [batch.upserts, batch.removals]),
      [[[], []]],
    );
    assertRound(quiet, false);
  });

  test('a create, an update, a delete and a moved occurrence come as exactly those changes', async () => {
    const first = await sync('cal-primary');
    let copy = apply(new Map(), first);
    const created = await change('/me/calendars/cal-primary/events', 'POST', {
      subject: 'New',
      start: { dateTime: '2026-06-20T14:00:00', timeZone: 'UTC' },
      end: { dateTime: '2026-06-20T15:00:00', timeZone: 'UTC' },
    });
    await change('/me/events/evt-invite', 'PATCH', { subject: 'Vendor call (moved)' });
    await change('/me/events/evt-retreat', 'DELETE');
    await change('/me/events/series-standup_20261019', 'PATCH', {
      start: { dateTime: '2026-10-19T11:00:00', timeZone: 'Europe/Berlin' },
      end: { dateTime: '2026-10-19T11:30:00', timeZone: 'Europe/Berlin' },
    });

    const batches = await sync('cal-primary', assertRound(first, true));
    assertRound(batches, false);
    assert.deepEqual(
      keys(batches).sort(),
      [created.id as string, 'evt-invite', 'series-standup_20261019'].sort(),
    );
    assert.deepEqual(
      batches.flatMap((batch) => batch.removals),
      ['evt-retreat'],
    );
    const moved = upserted(batches).find((item) => item.key === 'series-standup_20261019')!.occurrences[0]!;
    assert.deepEqual(
      [moved.providerEventId, moved.recurrenceId, moved.start, moved.timeZone],
      ['series-standup', '2026-10-19T07:00:00Z', '2026-10-19T11:00:00', 'Europe/Berlin'],
    );

    // The copy, changed incrementally, reads as Graph does now.
    copy = apply(copy, batches);
    const live = await provider().listEvents(account(), calendar('cal-primary'), horizon);
    assert.deepEqual(
      [...copy.values()].flatMap((item) => item.occurrences).sort(order),
      live.occurrences.sort(order),
    );
  });

  test('a deltaLink Graph dropped starts a full sync over in the same iteration', async () => {
    const state = assertRound(await sync('cal-busy', undefined, provider(), june), true);
    graph.invalidateDeltaTokens('cal-busy');
    graph.resetRequestCounts();
    graph.requests.length = 0;
    const batches = await sync('cal-busy', state, provider(), june);
    const next = assertRound(batches, true);
    assert.equal(keys(batches).length, 25);
    assert.deepEqual(graph.requestCounts(), { 'GET delta': 4 }, 'the refused link, then three pages');
    const restart = graph.apiRequests()[1]!;
    assert.equal(restart.query.get('startDateTime'), '2026-05-31T00:00:00Z');
    // And the new state works.
    assertRound(await sync('cal-busy', next, provider(), june), false);
  });

  test('a saved state that does not point at the configured Graph is never fetched: a full sync instead', async () => {
    const elsewhere = await startCountingServer();
    try {
      const path = '/v1.0/me/calendars/cal-busy/calendarView/delta?$deltatoken=abc';
      const states = [
        `http://127.0.0.1:${elsewhere.port}${path}`,
        `${graph.url}/beta/me/calendars/cal-busy/calendarView/delta?$deltatoken=abc`,
        `${graph.url.replace('//', '//alice:secret@')}${path}`,
        `${graph.apiBaseUrl}/me/calendars/cal-busy/events?$deltatoken=abc`,
        'not a link',
      ];
      for (const state of states) {
        graph.requests.length = 0;
        const batches = await sync('cal-busy', state, provider(), june);
        assertRound(batches, true);
        assert.equal(keys(batches).length, 25);
        assert.ok(
          graph.apiRequests().every((request) => request.query.get('$deltatoken') === null),
          `${state}: not followed`,
        );
      }
      assert.equal(elsewhere.connections, 0);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('failures', () => {
  test('a 5xx mid-listing fails after the earlier batches, without a state', async () => {
    const batches: SyncBatch[] = [];
    const iteration = provider()
      .sync!.syncCalendar(account(), calendar('cal-busy'), {
        horizon: june,
        knownVersions: async () => new Map(),
      })
      [Symbol.asyncIterator]();
    const first = await iteration.next();
    assert.equal(first.done, false);
    batches.push(first.value as SyncBatch);
    graph.failNext(3, { status: 503 });
    const error = await rejectsWith(iteration.next(), 'provider_unavailable');
    assert.equal(error.details?.reason, 'server_error');
    assert.equal(batches[0]?.nextState, undefined);
    assert.equal(batches[0]?.upserts.length, 10);
  });

  test('a failing resumed sync is not a reason to start over; a rejected token is reconnect_required', async () => {
    const state = assertRound(await sync('cal-busy', undefined, provider(), june), true);
    graph.resetRequestCounts();
    graph.failNext(3, { status: 503 });
    await rejectsWith(sync('cal-busy', state, provider(), june), 'provider_unavailable');
    assert.deepEqual(graph.requestCounts(), { 'GET delta': 3 });

    graph.revokeRefreshTokens(alice);
    graph.expireAccessTokens(alice);
    await rejectsWith(sync('cal-busy', state, provider(), june), 'reconnect_required');
  });

  test('a full round that loses its place fails rather than starting over', async () => {
    const iteration = provider()
      .sync!.syncCalendar(account(), calendar('cal-busy'), {
        horizon: june,
        knownVersions: async () => new Map(),
      })
      [Symbol.asyncIterator]();
    await iteration.next();
    graph.invalidateDeltaTokens('cal-busy');
    const error = await rejectsWith(iteration.next(), 'provider_unavailable');
    assert.equal(error.details?.reason, 'sync_state_lost');
  });
});

/** A Graph whose delta pages are changed on their way (a hostile or broken answer). */
const rewriting =
  (edit: (page: Record<string, unknown>) => Response | Record<string, unknown>): typeof fetch =>
  async (url, init) => {
    const response = await fetch(url, init);
    if (!String(url).includes('/delta') || !response.ok) return response;
    const edited = edit((await response.json()) as Record<string, unknown>);
    return edited instanceof Response ? edited : Response.json(edited);
  };

describe('hostile answers', () => {
  test('a next page on another host is never fetched', async () => {
    const elsewhere = await startCountingServer();
    try {
      const using = provider(
        rewriting((page) => ({ ...page, '@odata.nextLink': `http://127.0.0.1:${elsewhere.port}/v1.0/next` })),
      );
      const error = await rejectsWith(sync('cal-busy', undefined, using, june), 'provider_unavailable');
      assert.equal(error.details?.reason, 'other_origin');
      assert.equal(elsewhere.connections, 0);
    } finally {
      await elsewhere.close();
    }
  });

  test('pages too large, unreadable, or without an end are refused', async () => {
    const huge = rewriting(
      () => new Response('{}', { headers: { 'content-length': String(64 * 1024 * 1024) } }),
    );
    const tooLarge = await rejectsWith(
      sync('cal-busy', undefined, provider(huge), june),
      'payload_too_large',
    );
    assert.equal(tooLarge.details?.reason, 'too_large');

    const garbled = rewriting(
      () => new Response('{"value": [', { headers: { 'content-type': 'application/json' } }),
    );
    const unreadable = await rejectsWith(
      sync('cal-busy', undefined, provider(garbled), june),
      'provider_unavailable',
    );
    assert.equal(unreadable.details?.reason, 'unreadable');

    const endless = rewriting(({ '@odata.deltaLink': _link, '@odata.nextLink': _next, ...page }) => page);
    const noEnd = await rejectsWith(
      sync('cal-busy', undefined, provider(endless), june),
      'provider_unavailable',
    );
    assert.equal(noEnd.details?.reason, 'unreadable');
  });

  test('more entries than one calendar may hold end the sync', async () => {
    const flood = rewriting((page) => ({
      ...page,
      value: Array.from({ length: 50_001 }, (_, i) => ({
        id: `gone-${i}`,
        '@removed': { reason: 'deleted' },
      })),
    }));
    const error = await rejectsWith(
      sync('cal-busy', undefined, provider(flood), june),
      'provider_unavailable',
    );
    assert.equal(error.details?.reason, 'too_large');
  });

  test('entries without an id are skipped; removals are keys', async () => {
    const odd = rewriting((page) => ({
      ...page,
      value: [{ subject: 'no id' }, null, { id: 'busy-1', '@removed': { reason: 'deleted' } }],
    }));
    const batches = await sync('cal-busy', undefined, provider(odd), june);
    assert.deepEqual(
      batches.flatMap((batch) => batch.removals),
      ['busy-1', 'busy-1', 'busy-1'],
    );
    assert.equal(batches.flatMap((batch) => batch.skipped).length, 6);
    assert.deepEqual(upserted(batches), []);
  });
});

describe('push', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(() => receiver.close());

  const watch = (expiresAt: Temporal.Instant, calendarId = 'cal-primary') =>
    provider().push!.watch(account(), calendar(calendarId), {
      channelId: 'ignored-by-graph',
      address: `${receiver.url}/hooks/graph`,
      token: 'channel-secret',
      expiresAt: expiresAt.epochMilliseconds,
    });

  test('a subscription on the calendar’s events, validated, notifying with the token; stopped, and stopped again', async () => {
    const inAnHour = Temporal.Now.instant().add({ hours: 1 }).round('millisecond');
    const channel = await watch(inAnHour);
    assert.deepEqual(receiver.validations, ['/hooks/graph', '/hooks/graph']);
    assert.deepEqual(channel, {
      channelId: graph.subscriptions()[0]?.id,
      expiresAt: inAnHour.epochMilliseconds,
    });
    const [subscription] = graph.subscriptions();
    assert.deepEqual(
      [
        subscription?.resource,
        subscription?.changeTypes,
        subscription?.notificationUrl,
        subscription?.lifecycleNotificationUrl,
        subscription?.clientState,
      ],
      [
        'me/calendars/cal-primary/events',
        ['created', 'updated', 'deleted'],
        `${receiver.url}/hooks/graph`,
        `${receiver.url}/hooks/graph`,
        'channel-secret',
      ],
    );

    graph.changeBehindTheBack('evt-planning', { subject: 'Changed' });
    await graph.settled();
    assert.deepEqual(
      receiver.received.map((delivery) => delivery.body.value[0]?.clientState),
      ['channel-secret'],
    );

    await provider().push!.stop(account(), channel);
    assert.deepEqual(graph.subscriptions(), []);
    await provider().push!.stop(account(), channel);
    assert.deepEqual(graph.requestCounts()['DELETE subscription'], 2);
  });

  test('a longer life than Graph gives events is asked for within its maximum', async () => {
    const now = Temporal.Now.instant();
    const channel = await watch(now.add({ hours: 24 * 30 }));
    const granted = Temporal.Instant.fromEpochMilliseconds(channel.expiresAt);
    assert.ok(Temporal.Instant.compare(granted, now.add({ minutes: 10_080 })) < 0);
    assert.ok(Temporal.Instant.compare(granted, now.add({ minutes: 10_080 - 30 })) > 0);
  });

  test('a failed handshake subscribes nothing; a failing stop is an error', async () => {
    receiver.echo = 'wrong';
    const refused = await rejectsWith(watch(Temporal.Now.instant().add({ hours: 1 })), 'invalid_request');
    assert.equal(refused.details?.graphCode, 'ValidationError');
    assert.deepEqual(graph.subscriptions(), []);

    receiver.echo = 'right';
    const channel = await watch(Temporal.Now.instant().add({ hours: 1 }));
    graph.failNext(1, { status: 503, method: 'DELETE' });
    await rejectsWith(provider().push!.stop(account(), channel), 'provider_unavailable');
    assert.equal(graph.subscriptions().length, 1);
  });
});
