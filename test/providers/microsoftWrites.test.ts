/**
 * Writes through the Microsoft Graph adapter, over HTTP against the fake Graph server: what
 * is sent (method, If-Match, body), what a fresh read shows afterwards, and what a refused,
 * throttled or unanswered write leaves behind.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { NewEvent } from '../../src/domain/eventChanges.ts';
import type { ProviderCalendar } from '../../src/domain/providerFacts.ts';
import type { TimeWindow } from '../../src/domain/window.ts';
import { AppError } from '../../src/errors.ts';
import { newProviderUid } from '../../src/lib/ids.ts';
import { createMicrosoftProvider } from '../../src/providers/microsoft/adapter.ts';
import { uidProperty } from '../../src/providers/microsoft/writer.ts';
import type {
  AccountAccess,
  CalendarProvider,
  CredentialsOf,
  EventWriter,
} from '../../src/providers/port.ts';
import { ProviderHttp, type ProviderHttpOptions } from '../../src/providers/providerHttp.ts';
import { seedChangeKey } from '../fakes/graph/store.ts';
import { FakeGraph, type FakeGraphUserSeed } from '../fakes/graph.ts';
import { TestClock } from '../helpers/clock.ts';
import { TestDeadline } from '../helpers/deadline.ts';
import { assertOccurrenceShape } from '../helpers/occurrenceShape.ts';

const alice = 'alice@example.com';
const berlin = { zone: 'Europe/Berlin', originalStartTimeZone: 'W. Europe Standard Time' };

const users = (): FakeGraphUserSeed[] => [
  {
    email: alice,
    calendars: [
      {
        id: 'cal-main',
        name: 'Calendar',
        isDefaultCalendar: true,
        events: [
          {
            id: 'evt-review',
            ...berlin,
            start: '2026-03-25T14:00:00',
            end: '2026-03-25T15:00:00',
            subject: 'Review',
            body: { contentType: 'text', content: 'Bring numbers' },
            location: { displayName: 'Room 1' },
          },
          {
            // Mondays 09:00 Berlin, across the 2026-03-29 change to summer time.
            id: 'series-standup',
            ...berlin,
            start: '2026-03-16T09:00:00',
            end: '2026-03-16T09:15:00',
            subject: 'Standup',
            repeats: { count: 4 },
          },
          {
            id: 'evt-invite',
            ...berlin,
            start: '2026-03-26T10:00:00',
            end: '2026-03-26T11:00:00',
            subject: 'Design review',
            isOrganizer: false,
            organizer: { emailAddress: { address: 'boss@example.org' } },
            responseStatus: { response: 'notResponded', time: '0001-01-01T00:00:00Z' },
            attendees: [{ type: 'required', emailAddress: { address: alice }, status: { response: 'none' } }],
          },
        ],
      },
      { id: 'cal-holidays', name: 'Holidays', canEdit: false, owner: { address: 'holidays@example.com' } },
    ],
  },
];

let graph: FakeGraph;
let clock: TestClock;
/** Times out the requests a fault holds, and only those. */
const deadline = new TestDeadline();

beforeEach(async () => {
  graph = await FakeGraph.start({ users: users() });
  clock = new TestClock('2026-03-10T08:00:00Z');
});
afterEach(() => graph.close());

function providerWith(options: ProviderHttpOptions = {}): CalendarProvider<'microsoft'> {
  const http = new ProviderHttp({ baseDelayMs: 1, sleep: async () => {}, ...options });
  return createMicrosoftProvider({ http, config: graph.config(), clock });
}

function connected(): AccountAccess<CredentialsOf<'microsoft'>> {
  const tokens = graph.issueTokens(alice);
  return {
    accountKey: 'acc_alice',
    credentials: { kind: 'microsoft', ...tokens, expiresAt: clock.now().add({ hours: 1 }).epochMilliseconds },
    saveCredentials: async () => {},
  };
}

const calendar = (providerCalendarId: string, access: ProviderCalendar['access'] = 'owner') => ({
  providerCalendarId,
  name: providerCalendarId,
  primary: false,
  access,
});
const main = calendar('cal-main');
const march: TimeWindow = {
  start: Temporal.Instant.from('2026-03-09T00:00:00Z'),
  end: Temporal.Instant.from('2026-04-20T00:00:00Z'),
};

/** The adapter, its writer, an account, and reads through the same adapter. */
function setup(options: ProviderHttpOptions = {}) {
  const provider = providerWith(options);
  const writer = provider.writer as EventWriter<'microsoft'>;
  assert.ok(writer, 'the Graph provider writes');
  const account = connected();
  const read = async (id: string, recurrenceId?: string) => {
    const occurrence = await provider.getEvent(account, main, id, recurrenceId);
    if (occurrence !== undefined) assertOccurrenceShape(occurrence);
    return occurrence;
  };
  const list = async () => (await provider.listEvents(account, main, march)).occurrences;
  /** The fresh version of an event (or occurrence), as the write service takes it. */
  const target = async (providerEventId: string, recurrenceId?: string) => {
    const occurrence = await read(providerEventId, recurrenceId);
    assert.ok(occurrence?.facts.version, 'a version to write against');
    return { providerEventId, recurrenceId, version: occurrence.facts.version };
  };
  return { provider, writer, account, read, list, target };
}

const writes = () => graph.apiRequests().filter((request) => request.method !== 'GET');

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<AppError> {
  const error = await promise.then(
    () => assert.fail(`expected ${code}`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, code, error.message);
  return error;
}

const quarterly: NewEvent = {
  title: 'Quarterly review',
  description: 'Numbers',
  location: 'Room 7',
  freeBusyStatus: 'free',
  privacy: 'private',
  // Four hours on the clock, three elapsed: the clocks go forward at 02:00.
  timing: {
    allDay: false,
    start: '2026-03-28T23:30:00',
    end: '2026-03-29T03:30:00',
    timeZone: 'Europe/Berlin',
  },
};

describe('createEvent', () => {
  test('a timed event across the Berlin DST night reads back exactly, in getEvent and listEvents', async () => {
    const { writer, account, read, list } = setup();
    const uid = newProviderUid();
    const id = await writer.createEvent(account, main, quarterly, uid);

    const [post] = writes();
    assert.equal(post?.method, 'POST');
    assert.equal(post?.path, '/me/calendars/cal-main/events');
    assert.equal(post?.ifMatch, undefined);
    assert.deepEqual(post?.body, {
      subject: 'Quarterly review',
      body: { contentType: 'text', content: 'Numbers' },
      location: { displayName: 'Room 7' },
      isAllDay: false,
      start: { dateTime: '2026-03-28T23:30:00', timeZone: 'W. Europe Standard Time' },
      end: { dateTime: '2026-03-29T03:30:00', timeZone: 'W. Europe Standard Time' },
      showAs: 'free',
      sensitivity: 'private',
      transactionId: uid,
      singleValueExtendedProperties: [{ id: uidProperty, value: uid }],
    });

    const created = await read(id);
    assert.deepEqual(created, {
      providerEventId: id,
      start: '2026-03-28T23:30:00',
      timeZone: 'Europe/Berlin',
      duration: 'PT3H',
      showWithoutTime: false,
      title: 'Quarterly review',
      description: 'Numbers',
      locations: [{ name: 'Room 7' }],
      links: created?.links,
      status: 'confirmed',
      freeBusyStatus: 'free',
      privacy: 'private',
      alerts: [{ offset: '-PT15M', action: 'display' }],
      // Only the read of one event knows the mailbox, and names the people.
      organizer: { email: 'alice@example.com', name: 'alice@example.com', self: true },
      facts: {
        recurring: false,
        organizer: 'self',
        attendees: false,
        conference: false,
        managedCopy: false,
        version: seedChangeKey(graph.storedEvents('cal-main').find((seed) => seed.id === id)!),
        userIsAttendee: false,
      },
    });
    const listed = (await list()).filter((occurrence) => occurrence.providerEventId === id);
    const { organizer: _organizer, ...withoutPeople } = created!;
    assert.deepEqual(listed, [withoutPeople]);
  });

  test('an all-day event: dates at midnight, no zone, whole days', async () => {
    const { writer, account, read } = setup();
    const id = await writer.createEvent(
      account,
      main,
      { title: 'Offsite', timing: { allDay: true, startDate: '2026-03-28', endDate: '2026-03-30' } },
      newProviderUid(),
    );
    const body = writes()[0]?.body as Record<string, unknown>;
    assert.deepEqual(
      [body.isAllDay, body.start, body.end],
      [
        true,
        { dateTime: '2026-03-28T00:00:00', timeZone: 'UTC' },
        { dateTime: '2026-03-30T00:00:00', timeZone: 'UTC' },
      ],
    );
    const offsite = await read(id);
    assert.deepEqual(
      [offsite?.start, offsite?.timeZone, offsite?.duration, offsite?.showWithoutTime, offsite?.title],
      ['2026-03-28T00:00:00', undefined, 'P2D', true, 'Offsite'],
    );
  });

  test('a second create with the same uid makes no second event; findCreated finds the one', async () => {
    const { writer, account } = setup();
    const uid = newProviderUid();
    const first = await writer.createEvent(account, main, quarterly, uid);
    const again = await writer.createEvent(account, main, quarterly, uid).then(
      (id) => id,
      (error: unknown) => error,
    );
    if (typeof again === 'string') assert.equal(again, first);
    else
      assert.ok(again instanceof AppError && again.code === 'conflict' && again.details?.reason === 'exists');
    const copies = graph.storedEvents('cal-main').filter((seed) => seed.subject === 'Quarterly review');
    assert.equal(copies.length, 1);

    assert.equal(await writer.findCreated(account, main, uid), first);
    const unknown = newProviderUid();
    assert.equal(await writer.findCreated(account, main, unknown), undefined);
    const search = graph.apiRequests().at(-1)!;
    assert.equal(search.path, '/me/calendars/cal-main/events');
    assert.equal(
      search.query.get('$filter'),
      `singleValueExtendedProperties/Any(ep: ep/id eq '${uidProperty}' and ep/value eq '${unknown}')`,
    );
  });

  test('a calendar the user may not edit is calendar_read_only, and nothing is made', async () => {
    const { writer, account } = setup();
    await rejectsWith(
      writer.createEvent(account, calendar('cal-holidays', 'reader'), quarterly, newProviderUid()),
      'calendar_read_only',
    );
    assert.deepEqual(graph.storedEvents('cal-holidays'), []);
  });
});

describe('updateEvent', () => {
  test('a single event: title, a move, the description and location removed, with If-Match', async () => {
    const { writer, account, read, target } = setup();
    const before = await target('evt-review');
    await writer.updateEvent(account, main, before, {
      title: 'Review (moved)',
      description: null,
      location: null,
      timing: {
        allDay: false,
        start: '2026-03-30T10:00:00',
        end: '2026-03-30T11:30:00',
        timeZone: 'Europe/Berlin',
      },
    });
    const [patch] = writes();
    assert.equal(patch?.method, 'PATCH');
    assert.equal(patch?.path, '/me/calendars/cal-main/events/evt-review');
    assert.equal(patch?.ifMatch, `W/"${before.version}"`);
    assert.deepEqual(patch?.body, {
      subject: 'Review (moved)',
      body: { contentType: 'text', content: '' },
      location: { displayName: '' },
      isAllDay: false,
      start: { dateTime: '2026-03-30T10:00:00', timeZone: 'W. Europe Standard Time' },
      end: { dateTime: '2026-03-30T11:30:00', timeZone: 'W. Europe Standard Time' },
    });
    const after = await read('evt-review');
    assert.deepEqual(
      [after?.title, after?.start, after?.timeZone, after?.duration, after?.description, after?.locations],
      ['Review (moved)', '2026-03-30T10:00:00', 'Europe/Berlin', 'PT1H30M', undefined, undefined],
    );
    assert.notEqual(after?.facts.version, before.version, 'every write changes the changeKey');
  });

  test('a zone without a Windows name is sent by its IANA name and read back in it', async () => {
    const { writer, account, read, target } = setup();
    await writer.updateEvent(account, main, await target('evt-review'), {
      timing: {
        allDay: false,
        start: '2026-03-25T09:00:00',
        end: '2026-03-25T10:00:00',
        timeZone: 'Europe/Amsterdam',
      },
      freeBusyStatus: 'free',
      privacy: 'public',
    });
    const body = writes()[0]?.body as Record<string, { timeZone?: string }>;
    assert.equal(body.start?.timeZone, 'Europe/Amsterdam');
    const after = await read('evt-review');
    assert.deepEqual(
      [after?.start, after?.timeZone, after?.freeBusyStatus, after?.privacy],
      ['2026-03-25T09:00:00', 'Europe/Amsterdam', 'free', 'public'],
    );
  });

  test('one occurrence alone: its instance is written, the others stay', async () => {
    const { writer, account, list, target } = setup();
    const standups = async () =>
      (await list())
        .filter((occurrence) => occurrence.providerEventId === 'series-standup')
        .map((occurrence) => [
          occurrence.recurrenceId,
          occurrence.title,
          occurrence.start,
          occurrence.duration,
        ]);
    assert.deepEqual(await standups(), [
      ['2026-03-16T08:00:00Z', 'Standup', '2026-03-16T09:00:00', 'PT15M'],
      ['2026-03-23T08:00:00Z', 'Standup', '2026-03-23T09:00:00', 'PT15M'],
      ['2026-03-30T07:00:00Z', 'Standup', '2026-03-30T09:00:00', 'PT15M'],
      ['2026-04-06T07:00:00Z', 'Standup', '2026-04-06T09:00:00', 'PT15M'],
    ]);
    const second = await target('series-standup', '2026-03-23T08:00:00Z');
    await writer.updateEvent(account, main, second, {
      title: 'Standup (late)',
      timing: {
        allDay: false,
        start: '2026-03-23T11:00:00',
        end: '2026-03-23T11:20:00',
        timeZone: 'Europe/Berlin',
      },
    });
    const [patch] = writes();
    assert.equal(patch?.path, '/me/calendars/cal-main/events/series-standup_20260323');
    assert.equal(patch?.ifMatch, `W/"${second.version}"`);
    assert.deepEqual(await standups(), [
      ['2026-03-16T08:00:00Z', 'Standup', '2026-03-16T09:00:00', 'PT15M'],
      ['2026-03-23T08:00:00Z', 'Standup (late)', '2026-03-23T11:00:00', 'PT20M'],
      ['2026-03-30T07:00:00Z', 'Standup', '2026-03-30T09:00:00', 'PT15M'],
      ['2026-04-06T07:00:00Z', 'Standup', '2026-04-06T09:00:00', 'PT15M'],
    ]);
    // The version the write was checked against is spent.
    await rejectsWith(writer.updateEvent(account, main, second, { title: 'Stale' }), 'conflict');
  });

  test('the series: written against the master’s changeKey, every occurrence follows', async () => {
    const { writer, account, list, read, target } = setup();
    // The first occurrence changed alone has a changeKey of its own; the series is not it.
    await writer.updateEvent(account, main, await target('series-standup', '2026-03-16T08:00:00Z'), {
      description: 'First one',
    });
    const master = graph.storedEvents('cal-main').find((seed) => seed.id === 'series-standup')!;
    const series = await target('series-standup');
    assert.equal(series.version, seedChangeKey(master));
    assert.notEqual((await read('series-standup', '2026-03-16T08:00:00Z'))?.facts.version, series.version);

    await writer.updateEvent(account, main, series, { title: 'Team sync' });
    assert.equal(writes().at(-1)?.path, '/me/calendars/cal-main/events/series-standup');
    assert.equal(writes().at(-1)?.ifMatch, `W/"${series.version}"`);
    const titles = (await list())
      .filter((occurrence) => occurrence.providerEventId === 'series-standup')
      .map((occurrence) => occurrence.title);
    assert.deepEqual(titles, ['Team sync', 'Team sync', 'Team sync', 'Team sync']);
  });

  test('a stale version is a conflict, and nothing changes', async () => {
    const { writer, account, read, target } = setup();
    const stale = await target('evt-review');
    graph.changeBehindTheBack('evt-review', { subject: 'Renamed elsewhere' });
    const error = await rejectsWith(writer.updateEvent(account, main, stale, { title: 'Mine' }), 'conflict');
    assert.equal(error.details?.reason, 'version');
    assert.equal(error.details?.status, 412);
    assert.equal((await read('evt-review'))?.title, 'Renamed elsewhere');
    await rejectsWith(writer.deleteEvent(account, main, stale), 'conflict');
    assert.ok(await read('evt-review'));
  });

  test('a write answered 429 is provider_unavailable (rate_limited), sent exactly once', async () => {
    const { writer, account, read, target } = setup();
    const before = await target('evt-review');
    graph.failNext(1, { status: 429, retryAfter: 5, method: 'PATCH' });
    const error = await rejectsWith(
      writer.updateEvent(account, main, before, { title: 'Throttled' }),
      'provider_unavailable',
    );
    assert.deepEqual([error.details?.reason, error.retryAfter], ['rate_limited', 5]);
    assert.equal(writes().length, 1);
    assert.equal((await read('evt-review'))?.title, 'Review');
  });

  test('a write answered 503 is provider_unavailable (server_error), sent exactly once', async () => {
    const { writer, account, target } = setup();
    const before = await target('evt-review');
    graph.failNext(1, { status: 503, method: 'PATCH' });
    const error = await rejectsWith(
      writer.updateEvent(account, main, before, { title: 'Down' }),
      'provider_unavailable',
    );
    assert.equal(error.details?.reason, 'server_error');
    assert.equal(writes().length, 1);
  });

  test('a rejected token is refreshed once and the write sent again: Graph applied nothing on a 401', async () => {
    const { writer, account, read, target } = setup();
    const before = await target('evt-review');
    graph.expireAccessTokens();
    await writer.updateEvent(account, main, before, { title: 'After refresh' });
    assert.deepEqual(graph.identity.grants, ['refresh_token']);
    assert.deepEqual(
      writes().map((request) => request.method),
      ['PATCH', 'PATCH'],
    );
    assert.equal((await read('evt-review'))?.title, 'After refresh');
  });

  test('a write that times out before Graph applied it: provider_unavailable, nothing changed', async () => {
    const { writer, account, read, target } = setup({ deadline: deadline.signal });
    const before = await target('evt-review');
    graph.failNext(1, { method: 'PATCH', phase: 'before', ...deadline.held() });
    const error = await rejectsWith(
      writer.updateEvent(account, main, before, { title: 'Lost' }),
      'provider_unavailable',
    );
    assert.equal(error.details?.reason, 'timeout');
    await graph.settled();
    assert.equal(writes().length, 1, 'never sent twice');
    assert.equal((await read('evt-review'))?.title, 'Review');
  });
});

describe('createEvent, unanswered', () => {
  test('timed out before Graph applied it: nothing made, findCreated finds nothing', async () => {
    const { writer, account } = setup({ deadline: deadline.signal });
    const uid = newProviderUid();
    graph.failNext(1, { method: 'POST', phase: 'before', ...deadline.held() });
    const error = await rejectsWith(
      writer.createEvent(account, main, quarterly, uid),
      'provider_unavailable',
    );
    assert.equal(error.details?.reason, 'timeout');
    await graph.settled();
    assert.equal(writes().length, 1);
    assert.equal(await writer.findCreated(account, main, uid), undefined);
    assert.equal(graph.storedEvents('cal-main').length, 3);
  });

  test('timed out after Graph applied it: findCreated finds the event', async () => {
    const { writer, account, read } = setup({ deadline: deadline.signal });
    const uid = newProviderUid();
    graph.failNext(1, { method: 'POST', phase: 'after', ...deadline.held() });
    const error = await rejectsWith(
      writer.createEvent(account, main, quarterly, uid),
      'provider_unavailable',
    );
    assert.equal(error.details?.reason, 'timeout');
    const id = await writer.findCreated(account, main, uid);
    assert.ok(id);
    assert.equal((await read(id))?.title, 'Quarterly review');
    assert.equal(writes().length, 1);
  });
});

describe('deleteEvent', () => {
  test('one occurrence: only it is gone', async () => {
    const { writer, account, list, read, target } = setup();
    const third = await target('series-standup', '2026-03-30T07:00:00Z');
    await writer.deleteEvent(account, main, third);
    const [del] = writes();
    assert.deepEqual(
      [del?.method, del?.path, del?.ifMatch],
      ['DELETE', '/me/calendars/cal-main/events/series-standup_20260330', `W/"${third.version}"`],
    );
    assert.equal(await read('series-standup', '2026-03-30T07:00:00Z'), undefined);
    assert.deepEqual(
      (await list()).filter((o) => o.providerEventId === 'series-standup').map((o) => o.start),
      ['2026-03-16T09:00:00', '2026-03-23T09:00:00', '2026-04-06T09:00:00'],
    );
  });

  test('the series and a single event', async () => {
    const { writer, account, list, read, target } = setup();
    await writer.deleteEvent(account, main, await target('series-standup'));
    await writer.deleteEvent(account, main, await target('evt-review'));
    assert.equal(await read('series-standup'), undefined);
    assert.equal(await read('evt-review'), undefined);
    assert.deepEqual(
      (await list()).map((occurrence) => occurrence.providerEventId),
      ['evt-invite'],
    );
  });

  test('an event already gone is not_found', async () => {
    const { writer, account, target } = setup();
    const review = await target('evt-review');
    await writer.deleteEvent(account, main, review);
    await rejectsWith(writer.deleteEvent(account, main, review), 'not_found');
    await rejectsWith(
      writer.deleteEvent(account, main, {
        ...review,
        providerEventId: 'series-standup',
        recurrenceId: '2026-03-17T08:00:00Z',
      }),
      'not_found',
    );
  });
});

describe('respondToEvent', () => {
  test('tentative with a comment: the answer is sent to the organizer and read back', async () => {
    const { writer, account, read, target } = setup();
    const invite = await target('evt-invite');
    assert.equal((await read('evt-invite'))?.responseStatus, 'needs-action');
    await writer.respondToEvent(account, main, invite, { response: 'tentative', comment: 'Might be late' });
    const [post] = writes();
    assert.deepEqual(
      [post?.method, post?.path, post?.ifMatch, post?.body],
      [
        'POST',
        '/me/calendars/cal-main/events/evt-invite/tentativelyAccept',
        `W/"${invite.version}"`,
        { comment: 'Might be late', sendResponse: true },
      ],
    );
    const after = await read('evt-invite');
    assert.deepEqual([after?.responseStatus, after?.title], ['tentative', 'Design review']);

    await writer.respondToEvent(account, main, await target('evt-invite'), { response: 'declined' });
    assert.equal(writes().at(-1)?.path, '/me/calendars/cal-main/events/evt-invite/decline');
    assert.deepEqual(writes().at(-1)?.body, { sendResponse: true });
    assert.equal((await read('evt-invite'))?.responseStatus, 'declined');
  });

  test('the organizer cannot answer their own event: Graph refuses it', async () => {
    const { writer, account, target } = setup();
    const error = await rejectsWith(
      writer.respondToEvent(account, main, await target('evt-review'), { response: 'accepted' }),
      'invalid_request',
    );
    assert.equal(error.details?.status, 400);
  });
});

describe('guests', () => {
  const sent = () => graph.notices.map((notice) => [notice.kind, notice.to]);

  test('a new event with attendees: Graph invites them; the read names them and the user', async () => {
    const { writer, account, read } = setup();
    const id = await writer.createEvent(
      account,
      main,
      {
        ...quarterly,
        guests: {
          add: [
            { email: 'ann@example.org', name: 'Ann', optional: false },
            { email: 'ben@example.org', optional: true },
          ],
          remove: [],
        },
      },
      newProviderUid(),
    );
    assert.deepEqual((writes()[0]?.body as { attendees: unknown } | undefined)?.attendees, [
      { type: 'required', emailAddress: { address: 'ann@example.org', name: 'Ann' } },
      { type: 'optional', emailAddress: { address: 'ben@example.org' } },
    ]);
    assert.deepEqual(sent(), [
      ['invitation', 'ann@example.org'],
      ['invitation', 'ben@example.org'],
    ]);
    const made = await read(id);
    assert.deepEqual(
      [made?.organizer, made?.attendees, made?.facts.organizer, made?.facts.attendees],
      [
        { email: alice, name: alice, self: true },
        [
          { email: 'ann@example.org', name: 'Ann', optional: false, response: 'needs-action', self: false },
          { email: 'ben@example.org', optional: true, response: 'needs-action', self: false },
        ],
        'self',
        true,
      ],
    );
    assert.deepEqual(await writer.scheduling(account, main), {
      delivers: true,
      quiet: { update: false, delete: false },
      selfAddresses: [alice],
    });
  });

  test('added and removed on the collection Graph holds, answers kept; every change and deletion is sent', async () => {
    const { writer, account, read, target } = setup();
    const id = await writer.createEvent(
      account,
      main,
      { ...quarterly, guests: { add: [{ email: 'ann@example.org', optional: false }], remove: [] } },
      newProviderUid(),
    );
    graph.changeBehindTheBack(id, {
      attendees: [
        { type: 'required', emailAddress: { address: 'ann@example.org' }, status: { response: 'accepted' } },
      ],
    });
    const version = await target(id);
    const before = writes().length;
    graph.notices.length = 0;
    await writer.updateEvent(account, main, version, {
      guests: { add: [{ email: 'cat@example.org', optional: false }], remove: [] },
    });
    const [patch] = writes().slice(before);
    assert.deepEqual([patch?.method, patch?.ifMatch], ['PATCH', `W/"${version.version}"`]);
    assert.deepEqual(
      (await read(id))?.attendees?.map((a) => [a.email, a.response]),
      [
        ['ann@example.org', 'accepted'],
        ['cat@example.org', 'needs-action'],
      ],
    );
    assert.deepEqual(sent(), [
      ['update', 'ann@example.org'],
      ['invitation', 'cat@example.org'],
    ]);
    graph.notices.length = 0;
    await writer.updateEvent(account, main, await target(id), {
      guests: { add: [], remove: ['ANN@example.org'] },
    });
    assert.deepEqual(sent(), [
      ['update', 'cat@example.org'],
      ['cancellation', 'ann@example.org'],
    ]);
    graph.notices.length = 0;
    await writer.deleteEvent(account, main, await target(id));
    assert.deepEqual(sent(), [['cancellation', 'cat@example.org']]);
  });

  test('a listing leaves the people out; the read of the invitation marks the user among its attendees', async () => {
    const { account, read, list } = setup();
    const listed = (await list()).find((o) => o.providerEventId === 'evt-invite');
    assert.deepEqual([listed?.organizer, listed?.attendees], [undefined, undefined]);
    const invite = await read('evt-invite');
    assert.deepEqual(
      [invite?.organizer, invite?.attendees],
      [
        { email: 'boss@example.org', self: false },
        [{ email: alice, optional: false, response: 'needs-action', self: true }],
      ],
    );
    assert.ok(account);
  });

  test('the fake refuses attendees Graph refuses: no address, an unknown type', async () => {
    const { accessToken } = graph.issueTokens(alice);
    for (const attendees of [
      [{ type: 'required', emailAddress: { name: 'Nobody' } }],
      [{ type: 'chair', emailAddress: { address: 'a@example.org' } }],
    ]) {
      const response = await fetch(`${graph.apiBaseUrl}/me/calendars/cal-main/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          subject: 'x',
          start: { dateTime: '2026-03-23T09:00:00', timeZone: 'UTC' },
          end: { dateTime: '2026-03-23T10:00:00', timeZone: 'UTC' },
          attendees,
        }),
      });
      assert.equal(response.status, 400);
    }
    assert.deepEqual(graph.notices, []);
  });
});

describe('the fake, as Graph answers writes', () => {
  test('/me/events/{id}: If-Match against @odata.etag, unknown properties refused, a new changeKey per write', async () => {
    const { accessToken } = graph.issueTokens(alice);
    const call = (method: string, path: string, body?: unknown, ifMatch?: string) =>
      fetch(`${graph.apiBaseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${accessToken}`,
          'content-type': 'application/json',
          ...(ifMatch ? { 'if-match': ifMatch } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const event = (await (await call('GET', '/me/events/evt-review')).json()) as Record<string, string>;
    assert.equal(event['@odata.etag'], `W/"${event.changeKey}"`);

    const stale = await call('PATCH', '/me/events/evt-review', { subject: 'x' }, 'W/"other"');
    assert.equal(stale.status, 412);
    assert.equal(
      ((await stale.json()) as { error: { code: string } }).error.code,
      'ErrorIrresolvableConflict',
    );
    const misspelt = await call('PATCH', '/me/events/evt-review', { subjekt: 'x' }, event['@odata.etag']);
    assert.equal(misspelt.status, 400);

    const patched = await call(
      'PATCH',
      '/me/events/evt-review',
      { subject: 'Renamed' },
      event['@odata.etag'],
    );
    assert.equal(patched.status, 200);
    const after = (await patched.json()) as Record<string, string>;
    assert.equal(after.subject, 'Renamed');
    assert.notEqual(after.changeKey, event.changeKey);

    const accepted = await call('POST', '/me/events/evt-invite/accept', { sendResponse: false });
    assert.equal(accepted.status, 202);
    const readOnly = await call('POST', '/me/calendars/cal-holidays/events', { subject: 'x' });
    assert.equal(readOnly.status, 403);
    assert.equal(
      (await call('DELETE', '/me/events/evt-review', undefined, after['@odata.etag'])).status,
      204,
    );
    assert.equal((await call('GET', '/me/events/evt-review')).status, 404);
  });
});
