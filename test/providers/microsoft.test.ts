/** The Microsoft Graph adapter and connect flow, over HTTP against the fake Graph server. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ProviderCalendar, ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import type { TimeWindow } from '../../src/domain/window.ts';
import { AppError } from '../../src/errors.ts';
import { createMicrosoftProvider } from '../../src/providers/microsoft/adapter.ts';
import {
  authorizationUrl,
  exchangeCode,
  microsoftScopes,
  reachesSharedCalendars,
} from '../../src/providers/microsoft/oauth.ts';
import type { AccountAccess, CalendarProvider, CredentialsOf } from '../../src/providers/port.ts';
import { ProviderHttp, type ProviderHttpOptions } from '../../src/providers/providerHttp.ts';
import { alice, sampleUsers } from '../fakes/graph/sampleMailbox.ts';
import { FakeGraph } from '../fakes/graph.ts';
import { TestClock } from '../helpers/clock.ts';
import { TestDeadline } from '../helpers/deadline.ts';
import { assertOccurrenceShape } from '../helpers/occurrenceShape.ts';

type MicrosoftCredentials = CredentialsOf<'microsoft'>;

let graph: FakeGraph;
let clock: TestClock;
let sleeps: number[];

beforeEach(async () => {
  graph = await FakeGraph.start({ users: sampleUsers(), maxPageSize: 3 });
  clock = new TestClock('2026-06-01T08:00:00Z');
  sleeps = [];
});
afterEach(() => graph.close());

function providerWith(options: ProviderHttpOptions = {}): CalendarProvider<'microsoft'> {
  const http = new ProviderHttp({
    baseDelayMs: 1,
    sleep: async (ms) => void sleeps.push(ms),
    ...options,
  });
  return createMicrosoftProvider({ http, config: graph.config(), clock });
}

/** What accounts connected before shared calendars were granted. */
const scopesBeforeShared = ['offline_access', 'openid', 'email', 'Calendars.ReadWrite', 'User.Read'];

/**
 * Alice's account with tokens valid for an hour on the test clock (unless told otherwise);
 * `beforeShared`: connected before shared calendars (its grant without them, no scopes kept).
 */
function connected(expiresIn: Temporal.DurationLike = { hours: 1 }, { beforeShared = false } = {}) {
  const saved: MicrosoftCredentials[] = [];
  const { scopes, ...tokens } = graph.issueTokens(alice, beforeShared ? scopesBeforeShared : undefined);
  const account: AccountAccess<MicrosoftCredentials> = {
    accountKey: 'acc_alice',
    credentials: {
      kind: 'microsoft',
      ...tokens,
      ...(beforeShared ? {} : { scopes }),
      expiresAt: clock.now().add(expiresIn).epochMilliseconds,
    },
    saveCredentials: async (credentials) => void saved.push(credentials),
  };
  return { account, saved };
}

const calendar = (
  providerCalendarId: string,
  access: ProviderCalendar['access'] = 'owner',
): ProviderCalendar => ({
  providerCalendarId,
  name: providerCalendarId,
  primary: false,
  access,
});

const window = (start: string, end: string): TimeWindow => ({
  start: Temporal.Instant.from(start),
  end: Temporal.Instant.from(end),
});
const june = window('2026-06-01T00:00:00Z', '2026-07-01T00:00:00Z');
const autumn = window('2026-10-19T00:00:00Z', '2026-11-16T00:00:00Z');

async function listed(provider: CalendarProvider<'microsoft'>, calendarId: string, range: TimeWindow) {
  const { account } = connected();
  const result = await provider.listEvents(account, calendar(calendarId), range);
  for (const occurrence of result.occurrences) assertOccurrenceShape(occurrence);
  return result;
}

const byId = (occurrences: ProviderOccurrence[], id: string, recurrenceId?: string) =>
  occurrences.find((o) => o.providerEventId === id && o.recurrenceId === recurrenceId);

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<AppError> {
  const error = await promise.then(
    () => assert.fail(`expected ${code}`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, code, error.message);
  return error;
}

describe('connect flow', () => {
  test('authorization URL carries PKCE S256 and the scopes; the code exchange returns tokens and the mailbox', async () => {
    const config = graph.config();
    const codeVerifier = 'verifier-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFG';
    const url = new URL(authorizationUrl(config, { state: 'state-1', codeVerifier }));
    assert.equal(url.origin + url.pathname, config.authorizationUrl);
    const query = Object.fromEntries(url.searchParams);
    assert.deepEqual(query, {
      client_id: config.clientId,
      response_type: 'code',
      redirect_uri: config.redirectUri,
      response_mode: 'query',
      scope: 'offline_access openid email Calendars.ReadWrite User.Read Calendars.ReadWrite.Shared',
      state: 'state-1',
      code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    assert.deepEqual(microsoftScopes, query.scope?.split(' '));

    const answer = await fetch(url, { redirect: 'manual' });
    assert.equal(answer.status, 302);
    const callback = new URL(answer.headers.get('location')!);
    assert.equal(callback.origin + callback.pathname, config.redirectUri);
    assert.equal(callback.searchParams.get('state'), 'state-1');
    const code = callback.searchParams.get('code')!;

    const deps = { http: new ProviderHttp(), config, clock };
    const connectedAccount = await exchangeCode(deps, code, codeVerifier);
    assert.equal(connectedAccount.email, alice);
    assert.equal(connectedAccount.tokens.expiresAt, clock.now().add({ hours: 1 }).epochMilliseconds);
    assert.ok(connectedAccount.tokens.refreshToken);
    assert.deepEqual(connectedAccount.tokens.scopes, microsoftScopes);
    assert.ok(reachesSharedCalendars(connectedAccount.tokens));

    const calendars = await providerWith().listCalendars({
      accountKey: 'acc_new',
      credentials: { kind: 'microsoft', ...connectedAccount.tokens },
      saveCredentials: async () => assert.fail('fresh tokens need no refresh'),
    });
    assert.equal(calendars.length, 4);

    // A code is good once.
    await rejectsWith(exchangeCode(deps, code, codeVerifier), 'reconnect_required');
  });

  test('a wrong PKCE verifier is refused; the fake insists on S256', async () => {
    const config = graph.config();
    const url = authorizationUrl(config, {
      state: 's',
      codeVerifier: 'the-right-verifier-0123456789-0123456789',
    });
    const code = new URL(
      (await fetch(url, { redirect: 'manual' })).headers.get('location')!,
    ).searchParams.get('code')!;
    const deps = { http: new ProviderHttp(), config, clock };
    await rejectsWith(
      exchangeCode(deps, code, 'a-wrong-verifier-0123456789-0123456789'),
      'reconnect_required',
    );

    const plain = new URL(url);
    plain.searchParams.set('code_challenge_method', 'plain');
    const refused = new URL((await fetch(plain, { redirect: 'manual' })).headers.get('location')!);
    assert.equal(refused.searchParams.get('error'), 'invalid_request');
    const foreign = new URL(url);
    foreign.searchParams.set('redirect_uri', 'https://evil.example/callback');
    assert.equal((await fetch(foreign, { redirect: 'manual' })).status, 400);
  });
});

describe('listCalendars', () => {
  test('maps rights, default calendar and colour, over several pages', async () => {
    const { account } = connected();
    const calendars = await providerWith().listCalendars(account);
    assert.deepEqual(calendars, [
      {
        providerCalendarId: 'cal-primary',
        name: 'Calendar',
        color: '#0078d4',
        primary: true,
        access: 'owner',
      },
      { providerCalendarId: 'cal-team', name: 'Team', primary: false, access: 'writer' },
      { providerCalendarId: 'cal-holidays', name: 'Holidays in Germany', primary: false, access: 'reader' },
      { providerCalendarId: 'cal-busy', name: 'Busy', primary: false, access: 'owner' },
    ]);
    assert.equal(graph.apiRequests().filter((r) => r.path === '/me/calendars').length, 2);
  });
});

describe('shared calendars', () => {
  test('are read and written through /me/calendars/{id}, as the share allows', async () => {
    const { account } = connected();
    const provider = providerWith();
    const { occurrences } = await provider.listEvents(account, calendar('cal-team', 'writer'), june);
    assert.deepEqual(
      occurrences.map((o) => o.providerEventId),
      ['evt-team-planning'],
    );
    const created = await provider.writer!.createEvent(
      account,
      calendar('cal-team', 'writer'),
      {
        title: 'Team lunch',
        timing: { allDay: false, start: '2026-06-12T12:00:00', end: '2026-06-12T13:00:00', timeZone: 'UTC' },
      },
      'uid-team-lunch',
    );
    const post = graph.apiRequests().find((r) => r.method === 'POST');
    assert.equal(post?.path, '/me/calendars/cal-team/events');
    assert.equal(graph.storedEvents('cal-team').at(-1)?.id, created);
  });

  test('an account connected before them lists its own calendars, refreshes within its grant, and reaches shared ones after a reconnect', async () => {
    const { account, saved } = connected({ minutes: -1 }, { beforeShared: true });
    assert.equal(reachesSharedCalendars(account.credentials), false);
    // Her own calendar whose owner Graph names by another of her addresses stays hers.
    const mailbox = graph.users.find((user) => user.email === alice)!;
    mailbox.aliases = ['alice.example@example.com'];
    mailbox.calendars.push({
      id: 'cal-alias',
      name: 'Alias',
      owner: { address: 'alice.example@example.com' },
    });
    const provider = providerWith();
    const calendars = await provider.listCalendars(account);
    assert.deepEqual(
      calendars.map((c) => c.providerCalendarId),
      ['cal-primary', 'cal-busy', 'cal-alias'],
    );
    // Asking for the shared scope here would be refused (invalid_grant: not consented).
    assert.deepEqual(graph.identity.grants, ['refresh_token']);
    assert.equal(saved.length, 1);
    assert.equal(saved[0]?.scopes, undefined);
    // What the grant cannot read, Graph refuses: why the listing leaves them out.
    await rejectsWith(provider.listEvents(account, calendar('cal-team', 'writer'), june), 'not_found');
  });
});

describe('listEvents', () => {
  test('maps a Berlin meeting with an HTML body, places, Teams link, reminder and attendees', async () => {
    const { occurrences } = await listed(providerWith(), 'cal-primary', june);
    assert.deepEqual(byId(occurrences, 'evt-planning'), {
      providerEventId: 'evt-planning',
      start: '2026-06-10T09:30:00',
      timeZone: 'Europe/Berlin',
      duration: 'PT1H30M',
      showWithoutTime: false,
      title: 'Planning',
      description: 'Agenda:\n\n• Budget & plan\n• Risks <high>\n\nCoffee €2,\nsee you',
      locations: [{ name: 'Room 4.01', coordinates: 'geo:52.52,13.405' }, { name: 'Main office' }],
      virtualLocations: [
        { name: 'Microsoft Teams', uri: 'https://teams.microsoft.com/l/meetup-join/planning' },
      ],
      links: [{ href: 'https://outlook.office365.com/owa/?itemid=planning', rel: 'alternate' }],
      keywords: ['Blue category', 'Project X'],
      status: 'confirmed',
      freeBusyStatus: 'busy',
      privacy: 'private',
      alerts: [{ offset: '-PT15M', action: 'display' }],
      facts: {
        recurring: false,
        organizer: 'self',
        attendees: true,
        conference: true,
        managedCopy: false,
        version: 'ck-planning-1',
        userIsAttendee: false,
      },
    });
    // Every page asked for UTC times.
    for (const request of graph.apiRequests()) assert.equal(request.prefer, 'outlook.timezone="UTC"');
  });

  test('maps an invitation: the user’s response, free time, confidential', async () => {
    const { occurrences } = await listed(providerWith(), 'cal-primary', june);
    assert.deepEqual(byId(occurrences, 'evt-invite'), {
      providerEventId: 'evt-invite',
      start: '2026-06-11T08:00:00',
      timeZone: 'America/New_York',
      duration: 'PT45M',
      showWithoutTime: false,
      title: 'Vendor call',
      description: 'Dial in early.',
      locations: [{ name: 'Phone' }],
      virtualLocations: [{ uri: 'https://meet.vendor.example/123' }],
      status: 'confirmed',
      freeBusyStatus: 'free',
      privacy: 'secret',
      responseStatus: 'tentative',
      facts: {
        recurring: false,
        organizer: 'other',
        attendees: true,
        conference: true,
        managedCopy: false,
        version: 'ck-invite-7',
        userIsAttendee: true,
      },
    });
  });

  test('all-day events are dates without a zone; unknown zones fall back to UTC', async () => {
    const { occurrences } = await listed(providerWith(), 'cal-primary', june);
    const holiday = byId(occurrences, 'evt-holiday');
    assert.equal(holiday?.start, '2026-07-01T00:00:00');
    assert.equal(holiday?.duration, 'P2D');
    assert.equal(holiday?.showWithoutTime, true);
    assert.equal(holiday?.timeZone, undefined);
    assert.equal(holiday?.freeBusyStatus, 'busy');
    assert.equal(holiday?.alerts, undefined);

    // "Customized Time Zone" names no zone: the UTC time is shown in Etc/UTC; zero length is kept.
    const custom = byId(occurrences, 'evt-custom-zone');
    assert.equal(custom?.start, '2026-06-12T04:30:00');
    assert.equal(custom?.timeZone, 'Etc/UTC');
    assert.equal(custom?.duration, 'PT0S');
    assert.equal(custom?.status, 'cancelled');

    assert.deepEqual(occurrences.map((o) => o.providerEventId).sort(), [
      'evt-custom-zone',
      'evt-holiday',
      'evt-invite',
      'evt-planning',
    ]);
  });

  test('events across the 2026-10-25 Berlin DST change keep local times and nominal days', async () => {
    const { occurrences, skipped } = await listed(providerWith(), 'cal-primary', autumn);
    assert.deepEqual(skipped, []);
    const overnight = byId(occurrences, 'evt-overnight');
    assert.equal(overnight?.start, '2026-10-24T22:00:00');
    assert.equal(overnight?.timeZone, 'Europe/Berlin');
    assert.equal(overnight?.duration, 'PT13H'); // 22:00 CEST to 10:00 CET
    const retreat = byId(occurrences, 'evt-retreat');
    assert.equal(retreat?.duration, 'P1DT30M'); // 25.5 elapsed hours

    const series = occurrences.filter((o) => o.providerEventId === 'series-standup');
    assert.deepEqual(
      series.map((o) => [o.recurrenceId, o.start, o.duration, o.title, o.facts.recurring]),
      [
        ['2026-10-19T07:00:00Z', '2026-10-19T09:00:00', 'PT15M', 'Standup', true],
        ['2026-10-26T08:00:00Z', '2026-10-27T10:00:00', 'PT15M', 'Standup (moved)', true],
        ['2026-11-09T08:00:00Z', '2026-11-09T09:00:00', 'PT15M', 'Standup', true],
      ],
    );
  });

  test('follows @odata.nextLink through every page and keeps only the window', async () => {
    const { occurrences } = await listed(
      providerWith(),
      'cal-busy',
      window('2026-06-03T00:00:00Z', '2026-06-23T10:00:00Z'),
    );
    // 06-02 and 06-23 fall in the day of margin Graph is asked for, and are filtered out here.
    assert.deepEqual(
      occurrences.map((o) => o.start),
      Array.from({ length: 20 }, (_, i) => `2026-06-${String(i + 3).padStart(2, '0')}T10:00:00`),
    );
    const pages = graph.apiRequests().filter((r) => r.path.endsWith('/calendarView'));
    assert.equal(pages.length, 8); // 22 events, 3 per page
    assert.equal(pages[0]?.query.get('startDateTime'), '2026-06-02T00:00:00Z');
    assert.equal(pages[0]?.query.get('endDateTime'), '2026-06-24T10:00:00Z');
  });

  test('shared calendars: the owner’s organizer flag does not make the user the organizer', async () => {
    const { account } = connected();
    const { occurrences } = await providerWith().listEvents(account, calendar('cal-team', 'writer'), june);
    assert.equal(occurrences[0]?.facts.organizer, 'other');
    assert.equal(occurrences[0]?.facts.userIsAttendee, false);
  });
});

describe('getEvent', () => {
  test('reads single events, series instances by recurrence id, and undefined when gone', async () => {
    const provider = providerWith();
    const { account } = connected();
    const primary = calendar('cal-primary');

    assert.equal(await provider.getEvent(account, primary, 'no-such-event'), undefined);
    assert.equal((await provider.getEvent(account, primary, 'evt-planning'))?.title, 'Planning');
    assert.equal(
      await provider.getEvent(account, primary, 'evt-planning', '2026-06-10T07:30:00Z'),
      undefined,
    );

    const moved = await provider.getEvent(account, primary, 'series-standup', '2026-10-26T08:00:00Z');
    assert.ok(moved);
    assertOccurrenceShape(moved);
    assert.deepEqual(
      [moved.recurrenceId, moved.start, moved.title],
      ['2026-10-26T08:00:00Z', '2026-10-27T10:00:00', 'Standup (moved)'],
    );
    const first = await provider.getEvent(account, primary, 'series-standup');
    assert.equal(first?.recurrenceId, '2026-10-19T07:00:00Z');
    // The deleted third instance no longer exists.
    assert.equal(
      await provider.getEvent(account, primary, 'series-standup', '2026-11-02T08:00:00Z'),
      undefined,
    );
  });
});

describe('tokens', () => {
  test('an expired token is refreshed first and the new tokens are saved', async () => {
    const { account, saved } = connected({ minutes: -1 });
    await providerWith().listCalendars(account);
    assert.deepEqual(graph.identity.grants, ['refresh_token']);
    assert.equal(saved.length, 1);
    assert.notEqual(saved[0]?.accessToken, account.credentials.accessToken);
    assert.notEqual(saved[0]?.refreshToken, account.credentials.refreshToken);
    assert.equal(saved[0]?.expiresAt, clock.now().add({ hours: 1 }).epochMilliseconds);
    assert.deepEqual(saved[0]?.scopes, microsoftScopes, 'the grant’s scopes outlive the refresh');
    for (const request of graph.apiRequests()) assert.equal(request.accessToken, saved[0]?.accessToken);
  });

  test('a first 401 refreshes once for all waiting calls, then they succeed', async () => {
    const { account, saved } = connected();
    graph.expireAccessTokens();
    const provider = providerWith();
    await Promise.all([
      provider.listCalendars(account),
      provider.listEvents(account, calendar('cal-primary'), june),
      provider.listEvents(account, calendar('cal-busy'), june),
    ]);
    assert.deepEqual(graph.identity.grants, ['refresh_token']);
    assert.equal(saved.length, 1);
  });

  test('a refused refresh is reconnect_required, and is not retried', async () => {
    const { account, saved } = connected();
    graph.expireAccessTokens();
    graph.revokeRefreshTokens(alice);
    await rejectsWith(providerWith().listCalendars(account), 'reconnect_required');
    assert.deepEqual(graph.identity.grants, ['refresh_token']);
    assert.deepEqual(saved, []);
  });

  test('a 401 for a freshly refreshed token is reconnect_required', async () => {
    const { account } = connected();
    graph.failNext(2, { status: 401 });
    await rejectsWith(
      providerWith().listEvents(account, calendar('cal-primary'), june),
      'reconnect_required',
    );
    assert.deepEqual(graph.identity.grants, ['refresh_token']);
  });
});

describe('provider faults', () => {
  test('429 with Retry-After is retried after the wait it names', async () => {
    graph.failNext(2, { status: 429, retryAfter: 2 });
    const { occurrences } = await listed(providerWith(), 'cal-primary', autumn);
    assert.equal(occurrences.length, 5);
    assert.deepEqual(sleeps, [2000, 2000]);
  });

  test('503 until the attempts run out is provider_unavailable', async () => {
    graph.failNext(3, { status: 503, retryAfter: 1 });
    const error = await rejectsWith(listed(providerWith(), 'cal-primary', june), 'provider_unavailable');
    assert.equal(error.details?.status, 503);
    assert.equal(error.retryAfter, 1);
  });

  test('a Graph that does not answer in time is provider_unavailable', async () => {
    const deadline = new TestDeadline();
    graph.failNext(3, deadline.held());
    const error = await rejectsWith(
      listed(providerWith({ deadline: deadline.signal }), 'cal-primary', june),
      'provider_unavailable',
    );
    assert.equal(error.details?.reason, 'timeout');
  });

  test('at most 4 requests per mailbox are in flight, however many calls run', async () => {
    const provider = providerWith();
    const { account } = connected();
    // Each request held long enough that the calls overlap, however busy the machine.
    graph.latencyMs = 100;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => provider.listEvents(account, calendar('cal-busy'), june)),
    );
    assert.ok(results.every((result) => result.occurrences.length === 25));
    const peak = graph.peakInFlight(account.credentials.accessToken);
    assert.ok(peak <= 4, `peak ${peak}`);
    assert.ok(peak >= 2, `peak ${peak}: the calls did not overlap`);
  });
});
