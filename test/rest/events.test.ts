/**
 * The REST read interface at /v1 over in-memory calendars behind the real read path: exact
 * events and order, exclusions, paging with bound cursors, rights narrowed to a read-only
 * token, masking, calendar permission, time zones never guessed, closed queries, and the
 * shape of the interface itself (GET only, 405 with Allow, 404, audience-bound tokens).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import type { DetailLevel } from '../../src/domain/detailLevels.ts';
import type { Event } from '../../src/domain/event.ts';
import type { EventIds } from '../../src/domain/occurrences.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { AppError } from '../../src/errors.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { setAccountStatus } from '../../src/store/connectedAccounts.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  ownFacts,
  seedMemoryAccount,
} from '../helpers/memoryCalendars.ts';
import { getEvents, type QueryPairs, restRequest } from '../helpers/restClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const windowStart = '2026-03-02T00:00:00Z';
const windowEnd = '2026-03-09T00:00:00Z';
const inWindow: QueryPairs = [
  ['start', windowStart],
  ['end', windowEnd],
];

const berlin = (start: string, fields: Partial<ProviderOccurrence> & { providerEventId: string }) =>
  occurrence({ start, timeZone: 'Europe/Berlin', ...fields });
const utc = (start: string, fields: Partial<ProviderOccurrence> & { providerEventId: string }) =>
  occurrence({ start, timeZone: 'Etc/UTC', ...fields });

/** Work (Europe/Berlin, owner): every field, an invitation, a private event, all-day, a series. */
const work: MemoryCalendar = {
  name: 'Work',
  timeZone: 'Europe/Berlin',
  occurrences: [
    berlin('2026-03-02T09:00:00', {
      providerEventId: 'w1',
      title: 'Standup',
      description: 'Daily round',
      duration: 'PT15M',
      locations: [{ name: 'Room 4', description: 'Second floor', coordinates: 'geo:52.52,13.40' }],
      virtualLocations: [{ name: 'Video', uri: 'https://meet.example/standup' }],
      links: [{ href: 'https://docs.example/standup', title: 'Notes', rel: 'describedby' }],
      categories: ['Team'],
      keywords: ['ritual'],
      color: '#336699',
      privacy: 'public',
      alerts: [{ offset: '-PT5M', action: 'display' }],
      workingLocation: { type: 'office', label: 'Berlin' },
    }),
    berlin('2026-03-03T14:00:00', {
      providerEventId: 'w2',
      title: 'Review with Müller',
      responseStatus: 'needs-action',
      facts: { ...ownFacts, organizer: 'other', attendees: true, userIsAttendee: true },
    }),
    berlin('2026-03-04T12:00:00', {
      providerEventId: 'w3',
      title: 'Doctor',
      description: 'Check-up',
      privacy: 'private',
    }),
    // Outside the window.
    berlin('2026-03-10T09:00:00', { providerEventId: 'w4', title: 'Later' }),
    // All-day, placed in the calendar's zone: 2026-03-04T23:00:00Z.
    occurrence({
      providerEventId: 'w5',
      start: '2026-03-05T00:00:00',
      duration: 'P1D',
      showWithoutTime: true,
      title: 'Holiday',
      freeBusyStatus: 'free',
    }),
    berlin('2026-03-06T08:00:00', {
      providerEventId: 'w6',
      recurrenceId: '2026-03-06T07:00:00Z',
      title: 'Gym',
      facts: { ...ownFacts, recurring: true },
    }),
    berlin('2026-03-07T08:00:00', {
      providerEventId: 'w6',
      recurrenceId: '2026-03-07T07:00:00Z',
      title: 'Gym',
      facts: { ...ownFacts, recurring: true },
    }),
  ],
};

const calendars = new Map<string, MemoryCalendar>([
  ['work', work],
  [
    // Granted at `titles`; 03:00 in New York is 08:00Z, the same instant as Standup.
    'team',
    {
      name: 'Team',
      timeZone: 'America/New_York',
      access: 'writer',
      occurrences: [
        occurrence({
          providerEventId: 't1',
          start: '2026-03-02T03:00:00',
          timeZone: 'America/New_York',
          title: 'Planning',
          description: 'Hidden at titles',
          categories: ['Hidden'],
          locations: [{ name: 'Room 1' }],
          workingLocation: { type: 'home' },
        }),
      ],
    },
  ],
  [
    // Granted in full, but the provider gives free/busy only.
    'shared',
    {
      name: 'Shared',
      timeZone: 'Etc/UTC',
      access: 'freeBusy',
      occurrences: [
        utc('2026-03-02T10:00:00', { providerEventId: 's1', title: 'Board', description: 'Secret' }),
        utc('2026-03-02T10:30:00', { providerEventId: 's2', title: 'Focus', freeBusyStatus: 'free' }),
      ],
    },
  ],
  [
    // Owned, but granted at `busy` by consent.
    'consent-busy',
    {
      name: 'Consent busy',
      timeZone: 'Etc/UTC',
      occurrences: [
        utc('2026-03-02T11:00:00', { providerEventId: 'c1', title: 'Lunch', description: 'Pasta' }),
      ],
    },
  ],
  [
    'broken',
    {
      name: 'Broken',
      timeZone: 'Etc/UTC',
      occurrences: [],
      failure: new AppError('provider_unavailable', 'The provider is down.'),
    },
  ],
  ['crash', { name: 'Crash', timeZone: 'Etc/UTC', occurrences: [], failure: new Error('boom') }],
  [
    'partial',
    {
      name: 'Partial',
      timeZone: 'Etc/UTC',
      occurrences: [utc('2026-03-02T12:00:00', { providerEventId: 'p1', title: 'Readable' })],
      skipped: [{ providerEventId: 'p2', reason: 'unparseable recurrence' }],
    },
  ],
  [
    'many',
    {
      name: 'Many',
      timeZone: 'Etc/UTC',
      occurrences: [1, 2, 3, 4, 5, 6, 7].map((n) =>
        utc(`2026-03-08T0${n}:00:00`, { providerEventId: `m${n}`, title: `Item ${n}` }),
      ),
    },
  ],
]);

/** CalDAV without a calendar zone: a floating 09:00 and an all-day event. */
const davCalendars = new Map<string, MemoryCalendar>([
  [
    'floating',
    {
      name: 'Floating',
      occurrences: [
        occurrence({ providerEventId: 'f1', start: '2026-03-02T09:00:00', title: 'Floating coffee' }),
        occurrence({
          providerEventId: 'f2',
          start: '2026-03-03T00:00:00',
          duration: 'P1D',
          showWithoutTime: true,
          title: 'Day off',
        }),
      ],
    },
  ],
]);

describe('GET /v1/events and /v1/calendars', () => {
  let t: TestApp;
  let ids: EventIds;
  /** Ana's calendar ids by provider key. */
  const cal: Record<string, string> = {};
  let anaId: string;
  let workspaceId: string;
  let googleAccount: string;
  let davAccount: string;
  let token: string;
  let otherGrantToken: string;
  let writeToken: string;
  let mcpToken: string;
  let boCalendar: string;
  let boToken: string;
  /** Calls of the CalDAV provider's listEvents. */
  let davCalls = 0;

  /** The event a client sees, with the ids the service mints for it. */
  const seen = (
    key: string,
    providerEventId: string,
    fields: Omit<Event, 'eventId' | 'calendarId' | 'occurrenceId'>,
    recurrenceId?: string,
  ): Event => ({
    eventId: ids.eventId(cal[key]!, providerEventId),
    calendarId: cal[key]!,
    occurrenceId: ids.occurrenceId(cal[key]!, providerEventId, recurrenceId),
    ...fields,
  });

  const timed = { showWithoutTime: false, status: 'confirmed', freeBusyStatus: 'busy' } as const;
  const readOnlyRights = { canRespond: false, canEdit: false, editBlockedReason: 'access_denied' } as const;

  /** Work's events in the window, as a read-only v1 token sees them, in order. */
  const workEvents = (): Event[] => [
    seen('work', 'w1', {
      title: 'Standup',
      description: 'Daily round',
      locations: [{ name: 'Room 4', description: 'Second floor', coordinates: 'geo:52.52,13.40' }],
      virtualLocations: [{ name: 'Video', uri: 'https://meet.example/standup' }],
      links: [{ href: 'https://docs.example/standup', title: 'Notes', rel: 'describedby' }],
      categories: ['Team'],
      keywords: ['ritual'],
      color: '#336699',
      start: '2026-03-02T09:00:00+01:00',
      timeZone: 'Europe/Berlin',
      duration: 'PT15M',
      ...timed,
      ...readOnlyRights,
      privacy: 'public',
      alerts: [{ offset: '-PT5M', action: 'display' }],
      workingLocation: { type: 'office', label: 'Berlin' },
    }),
    seen('work', 'w2', {
      title: 'Review with Müller',
      start: '2026-03-03T14:00:00+01:00',
      timeZone: 'Europe/Berlin',
      duration: 'PT1H',
      ...timed,
      canRespond: false,
      canEdit: false,
      editBlockedReason: 'not_organizer',
      responseStatus: 'needs-action',
    }),
    // Private without private details: busy, nothing but time.
    seen('work', 'w3', {
      title: 'Busy',
      start: '2026-03-04T12:00:00+01:00',
      timeZone: 'Europe/Berlin',
      duration: 'PT1H',
      ...timed,
      ...readOnlyRights,
    }),
    seen('work', 'w5', {
      title: 'Holiday',
      start: '2026-03-05',
      duration: 'P1D',
      showWithoutTime: true,
      status: 'confirmed',
      freeBusyStatus: 'free',
      ...readOnlyRights,
    }),
    ...['2026-03-06', '2026-03-07'].map((day) =>
      seen(
        'work',
        'w6',
        {
          title: 'Gym',
          start: `${day}T08:00:00+01:00`,
          timeZone: 'Europe/Berlin',
          duration: 'PT1H',
          ...timed,
          ...readOnlyRights,
        },
        `${day}T07:00:00Z`,
      ),
    ),
  ];

  const manyEvents = (): Event[] =>
    [1, 2, 3, 4, 5, 6, 7].map((n) =>
      seen('many', `m${n}`, {
        title: `Item ${n}`,
        start: `2026-03-08T0${n}:00:00+00:00`,
        timeZone: 'Etc/UTC',
        duration: 'PT1H',
        ...timed,
        ...readOnlyRights,
      }),
    );

  const ok = async (query: QueryPairs, bearer = token) => {
    const response = await getEvents(t.app, bearer, query);
    assert.equal(response.status, 200, response.text);
    assert.match(response.contentType, /^application\/json/);
    return response.body as { data: Event[]; meta: { excluded: unknown[]; nextCursor?: string } };
  };

  const problem = async (query: QueryPairs, status: number, bearer = token) => {
    const response = await getEvents(t.app, bearer, query);
    assert.equal(response.status, status, response.text);
    assert.match(response.contentType, /^application\/problem\+json/);
    return response.body as Record<string, unknown>;
  };

  before(async () => {
    const google = memoryProvider('google', calendars);
    const memoryDav = memoryProvider('caldav', davCalendars);
    const caldav: typeof memoryDav = {
      ...memoryDav,
      listEvents: (...args) => {
        davCalls += 1;
        return memoryDav.listEvents(...args);
      },
    };
    t = await startTestApp({ providers: { google, caldav } });
    ids = createEventIds(t.ctx.secretKey);
    anaId = await seedUser(t.ctx.db, 'ana@example.org');
    const boId = await seedUser(t.ctx.db, 'bo@example.org');
    workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [
      [anaId, 'owner'],
      [boId, 'member'],
    ]);
    // Writes and private details are allowed here, so only the resource can take them away.
    await savePolicy(
      t.ctx.db,
      workspaceId,
      {
        ...defaultPolicy,
        allowedScopes: ['calendar:read', 'calendar:write', 'calendar:rsvp'],
        privateDetailsAllowed: true,
      },
      0,
    );
    const ana = { userId: anaId, workspaceId };
    const googleIds = await seedMemoryAccount(t.ctx, ana, google);
    [...calendars.keys()].forEach((key, i) => {
      cal[key] = googleIds[i]!;
    });
    const [floating] = await seedMemoryAccount(t.ctx, ana, caldav);
    cal.floating = floating!;
    const accounts = await t.ctx.db.selectFrom('calendars').select(['id', 'account_id']).execute();
    googleAccount = accounts.find((a) => a.id === cal.work)!.account_id;
    davAccount = accounts.find((a) => a.id === cal.floating)!.account_id;
    boCalendar = (await seedMemoryAccount(t.ctx, { userId: boId, workspaceId }, google))[0]!;

    const levels: Record<string, DetailLevel> = {
      work: 'full',
      team: 'titles',
      shared: 'full',
      'consent-busy': 'busy',
      broken: 'full',
      crash: 'full',
      partial: 'full',
      many: 'full',
      floating: 'full',
    };
    const granted = Object.entries(levels).map(([key, detailLevel]) => ({
      calendarId: cal[key]!,
      detailLevel,
    }));
    const spec = { userId: anaId, workspaceId, calendars: granted, resource: 'v1' as const };
    ({ token } = await grantToken(t.ctx, spec));
    ({ token: otherGrantToken } = await grantToken(t.ctx, spec));
    ({ token: writeToken } = await grantToken(t.ctx, {
      ...spec,
      scopes: ['calendar:read', 'calendar:write', 'calendar:rsvp'],
      privateDetails: true,
    }));
    ({ token: mcpToken } = await grantToken(t.ctx, { ...spec, resource: 'mcp' }));
    // A grant that names Bo's calendar: a stored grant can never reach another person's calendar.
    ({ token: boToken } = await grantToken(t.ctx, {
      ...spec,
      calendars: [...granted, { calendarId: boCalendar, detailLevel: 'full' }],
    }));
  });

  after(() => t.close());

  describe('calendars', () => {
    it('lists the granted calendars with their effective level and counts the rest', async () => {
      const response = await restRequest(t.app, { url: '/v1/calendars', token });
      assert.equal(response.status, 200, response.text);
      const item = (key: string, name: string, detailLevel: DetailLevel, extra: object = {}) => ({
        id: cal[key],
        name,
        provider: 'google',
        accountId: googleAccount,
        primary: false,
        readOnly: false,
        detailLevel,
        ...extra,
      });
      // Within an account by name; Bo's account and its calendars are not Ana's to see or count.
      const google = [
        item('broken', 'Broken', 'full', { timeZone: 'Etc/UTC' }),
        item('consent-busy', 'Consent busy', 'busy', { timeZone: 'Etc/UTC' }),
        item('crash', 'Crash', 'full', { timeZone: 'Etc/UTC' }),
        item('many', 'Many', 'full', { timeZone: 'Etc/UTC' }),
        item('partial', 'Partial', 'full', { timeZone: 'Etc/UTC' }),
        item('shared', 'Shared', 'busy', { timeZone: 'Etc/UTC', readOnly: true }),
        item('team', 'Team', 'titles', { timeZone: 'America/New_York' }),
        item('work', 'Work', 'full', { timeZone: 'Europe/Berlin' }),
      ];
      const dav = [
        {
          id: cal.floating,
          name: 'Floating',
          provider: 'caldav',
          accountId: davAccount,
          primary: false,
          readOnly: false,
          detailLevel: 'full',
        },
      ];
      assert.deepEqual(response.body, {
        data: googleAccount < davAccount ? [...google, ...dav] : [...dav, ...google],
        meta: { excluded: [] },
      });
    });

    it('counts calendars of the person that the grant does not include as not_selected', async () => {
      const { token: narrow } = await grantToken(t.ctx, {
        userId: anaId,
        workspaceId,
        calendars: [{ calendarId: cal.work!, detailLevel: 'titles' }],
        resource: 'v1',
      });
      const response = await restRequest(t.app, { url: '/v1/calendars', token: narrow });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body.data.map((c: { id: string }) => c.id),
        [cal.work],
      );
      assert.equal(response.body.data[0].detailLevel, 'titles');
      assert.deepEqual(response.body.meta, { excluded: [{ reason: 'not_selected', count: 8 }] });
    });
  });

  describe('calendar_id', () => {
    const expectedOf = (body: { data: Event[] }) => body.data.map((e) => e.occurrenceId);

    it('returns the exact events of one calendar, in start order, nothing outside the window', async () => {
      const body = await ok([['calendar_id', cal.work!], ...inWindow]);
      assert.deepEqual(body, { data: workEvents(), meta: { excluded: [] } });
    });

    it('takes the parameter repeated, comma-separated, or both, with the same answer', async () => {
      const all = [cal.work!, cal.team!, cal['consent-busy']!];
      const repeated = await ok([...all.map((id): [string, string] => ['calendar_id', id]), ...inWindow]);
      const comma = await ok([['calendar_id', all.join(',')], ...inWindow]);
      const mixed = await ok([['calendar_id', `${all[0]},${all[1]}`], ['calendar_id', all[2]!], ...inWindow]);
      const reversed = await ok([['calendar_id', [...all].reverse().join(',')], ...inWindow]);
      assert.equal(repeated.data.length, 8);
      assert.deepEqual(comma, repeated);
      assert.deepEqual(mixed, repeated);
      assert.deepEqual(reversed, repeated);
    });

    it('counts an id given twice once', async () => {
      const body = await ok([
        ['calendar_id', `${cal.work},${cal.work}`],
        ['calendar_id', cal.work!],
        ...inWindow,
      ]);
      assert.deepEqual(expectedOf(body), expectedOf({ data: workEvents() }));
    });

    it('merges calendars by start instant, then calendar id, then occurrence id', async () => {
      const body = await ok([
        ['calendar_id', [cal.team, cal.shared, cal['consent-busy'], cal.work].join(',')],
        ...inWindow,
      ]);
      const [w1, ...restOfWork] = workEvents();
      const t1 = seen('team', 't1', {
        title: 'Planning',
        locations: [{ name: 'Room 1' }],
        start: '2026-03-02T03:00:00-05:00',
        timeZone: 'America/New_York',
        duration: 'PT1H',
        ...timed,
        ...readOnlyRights,
        workingLocation: { type: 'home' },
      });
      const s1 = seen('shared', 's1', {
        title: 'Busy',
        start: '2026-03-02T10:00:00+00:00',
        timeZone: 'Etc/UTC',
        duration: 'PT1H',
        ...timed,
        canRespond: false,
        canEdit: false,
        editBlockedReason: 'calendar_read_only',
      });
      const s2 = seen('shared', 's2', {
        title: 'Free',
        start: '2026-03-02T10:30:00+00:00',
        timeZone: 'Etc/UTC',
        duration: 'PT1H',
        showWithoutTime: false,
        status: 'confirmed',
        freeBusyStatus: 'free',
        canRespond: false,
        canEdit: false,
        editBlockedReason: 'calendar_read_only',
      });
      const c1 = seen('consent-busy', 'c1', {
        title: 'Busy',
        start: '2026-03-02T11:00:00+00:00',
        timeZone: 'Etc/UTC',
        duration: 'PT1H',
        ...timed,
        ...readOnlyRights,
      });
      // Standup (09:00 Berlin) and Planning (03:00 New York) start at the same instant.
      const tied = [w1!, t1].sort((a, b) => (a.calendarId < b.calendarId ? -1 : 1));
      assert.deepEqual(body, { data: [...tied, s1, s2, c1, ...restOfWork], meta: { excluded: [] } });
    });
  });

  describe('rights and masking', () => {
    it('never lets a v1 token edit or respond, even when its grant holds write and rsvp', async () => {
      for (const bearer of [token, writeToken]) {
        const body = await ok([['calendar_id', `${cal.work},${cal.team}`], ...inWindow], bearer);
        assert.ok(body.data.length > 0);
        for (const e of body.data) {
          assert.equal(e.canEdit, false);
          assert.equal(e.canRespond, false);
        }
        const byTitle = new Map(body.data.map((e) => [e.title, e.editBlockedReason]));
        // Editable at the provider: access_denied; refused by the provider: its own reason.
        assert.equal(byTitle.get('Standup'), 'access_denied');
        assert.equal(byTitle.get('Planning'), 'access_denied');
        assert.equal(byTitle.get('Review with Müller'), 'not_organizer');
      }
    });

    it('shows a private event in full only to a grant with private details', async () => {
      const query: QueryPairs = [['calendar_id', cal.work!], ...inWindow];
      const hidden = (await ok(query, token)).data.find((e) => e.start === '2026-03-04T12:00:00+01:00');
      const shown = (await ok(query, writeToken)).data.find((e) => e.start === '2026-03-04T12:00:00+01:00');
      assert.deepEqual(hidden, workEvents()[2]);
      assert.deepEqual(
        shown,
        seen('work', 'w3', {
          title: 'Doctor',
          description: 'Check-up',
          start: '2026-03-04T12:00:00+01:00',
          timeZone: 'Europe/Berlin',
          duration: 'PT1H',
          ...timed,
          ...readOnlyRights,
          privacy: 'private',
        }),
      );
    });

    it('masks busy calendars (provider free/busy and consent alike) to placeholders with times', async () => {
      const body = await ok([['calendar_id', `${cal.shared},${cal['consent-busy']}`], ...inWindow]);
      assert.deepEqual(
        body.data.map((e) => [e.title, e.start, e.freeBusyStatus, Object.keys(e).sort().join(',')]),
        [
          [
            'Busy',
            '2026-03-02T10:00:00+00:00',
            'busy',
            'calendarId,canEdit,canRespond,duration,editBlockedReason,eventId,freeBusyStatus,occurrenceId,showWithoutTime,start,status,timeZone,title',
          ],
          [
            'Free',
            '2026-03-02T10:30:00+00:00',
            'free',
            'calendarId,canEdit,canRespond,duration,editBlockedReason,eventId,freeBusyStatus,occurrenceId,showWithoutTime,start,status,timeZone,title',
          ],
          [
            'Busy',
            '2026-03-02T11:00:00+00:00',
            'busy',
            'calendarId,canEdit,canRespond,duration,editBlockedReason,eventId,freeBusyStatus,occurrenceId,showWithoutTime,start,status,timeZone,title',
          ],
        ],
      );
      assert.doesNotMatch(JSON.stringify(body), /Board|Secret|Focus|Lunch|Pasta/);
    });
  });

  describe('meta.excluded', () => {
    it('reports failing and incomplete calendars in request order and still answers 200', async () => {
      const body = await ok([
        ['calendar_id', [cal.broken, cal.work, cal.partial, cal.crash].join(',')],
        ...inWindow,
      ]);
      const p1 = seen('partial', 'p1', {
        title: 'Readable',
        start: '2026-03-02T12:00:00+00:00',
        timeZone: 'Etc/UTC',
        duration: 'PT1H',
        ...timed,
        ...readOnlyRights,
      });
      const [w1, ...rest] = workEvents();
      assert.deepEqual(body, {
        data: [w1, p1, ...rest],
        meta: {
          excluded: [
            { calendarId: cal.broken, reason: 'provider_unavailable' },
            { calendarId: cal.partial, reason: 'incomplete' },
            { calendarId: cal.crash, reason: 'provider_unavailable' },
          ],
        },
      });
    });

    it('reports a rejected credential as reconnect_required and never tries it again', async () => {
      const floating = davCalendars.get('floating')!;
      floating.failure = new AppError('reconnect_required', 'The server refused the password.');
      const request: QueryPairs = [
        ['calendar_id', cal.floating!],
        ...inWindow,
        ['time_zone', 'Europe/Paris'],
      ];
      const answer = {
        data: [],
        meta: { excluded: [{ calendarId: cal.floating, reason: 'reconnect_required' }] },
      };
      try {
        const before = davCalls;
        assert.deepEqual(await ok(request), answer);
        assert.equal(davCalls, before + 1);
        // The account is marked: the next read reports it without calling the provider.
        assert.deepEqual(await ok(request), answer);
        assert.equal(davCalls, before + 1);
        const calendarsNow = await restRequest(t.app, { url: '/v1/calendars', token });
        assert.deepEqual(calendarsNow.body.meta.excluded, [
          { reason: 'reconnect_required', count: 1, accountId: davAccount },
        ]);
      } finally {
        delete floating.failure;
        await setAccountStatus(t.ctx.db, davAccount, 'active', null, 0);
      }
    });

    it('answers 200 with empty data when the only calendar fails', async () => {
      assert.deepEqual(await ok([['calendar_id', cal.broken!], ...inWindow]), {
        data: [],
        meta: { excluded: [{ calendarId: cal.broken, reason: 'provider_unavailable' }] },
      });
    });
  });

  describe('paging', () => {
    const both = () => [cal.work, cal.many].join(',');

    async function allPages(limit: number, bearer = token): Promise<Event[][]> {
      const pages: Event[][] = [];
      let cursor: string | undefined;
      do {
        const body = await ok(
          [
            ['calendar_id', both()],
            ...inWindow,
            ['limit', String(limit)],
            ...(cursor === undefined ? [] : ([['cursor', cursor]] as QueryPairs)),
          ],
          bearer,
        );
        assert.deepEqual(body.meta.excluded, []);
        pages.push(body.data);
        cursor = body.meta.nextCursor;
        assert.ok(pages.length < 20, 'paging does not end');
      } while (cursor !== undefined);
      return pages;
    }

    it('returns 13 events on pages of 3, 3, 3, 3, 1 with no duplicate and no gap', async () => {
      const whole = await ok([['calendar_id', both()], ...inWindow]);
      assert.deepEqual(whole.data, [...workEvents(), ...manyEvents()]);
      assert.equal(whole.meta.nextCursor, undefined);
      const pages = await allPages(3);
      assert.deepEqual(
        pages.map((p) => p.length),
        [3, 3, 3, 3, 1],
      );
      assert.deepEqual(pages.flat(), whole.data);
    });

    it('pages of 1 and of exactly the total', async () => {
      assert.deepEqual((await allPages(1)).flat(), [...workEvents(), ...manyEvents()]);
      const exact = await allPages(13);
      assert.equal(exact.length, 1);
      assert.equal(exact[0]!.length, 13);
    });

    it('answers without nextCursor by default (limit 250) and meta holds only excluded', async () => {
      const body = await ok([['calendar_id', both()], ...inWindow]);
      assert.deepEqual(Object.keys(body.meta), ['excluded']);
    });

    it('refuses a cursor reused with other parameters, another grant, or tampered', async () => {
      const first = await ok([['calendar_id', both()], ...inWindow, ['limit', '3']]);
      const cursor = first.meta.nextCursor!;
      assert.equal(typeof cursor, 'string');
      const invalid = (body: Record<string, unknown>) => {
        assert.equal(body.code, 'invalid_request');
        assert.equal(body.status, 400);
        assert.equal(body.field, 'cursor');
      };
      const variants: QueryPairs[] = [
        [['calendar_id', cal.work!], ...inWindow, ['limit', '3'], ['cursor', cursor]],
        [['calendar_id', `${both()},${cal.team}`], ...inWindow, ['limit', '3'], ['cursor', cursor]],
        [
          ['calendar_id', both()],
          ['start', '2026-03-02T00:00:01Z'],
          ['end', windowEnd],
          ['limit', '3'],
          ['cursor', cursor],
        ],
        [
          ['calendar_id', both()],
          ['start', windowStart],
          ['end', '2026-03-08T23:00:00Z'],
          ['limit', '3'],
          ['cursor', cursor],
        ],
        [
          ['calendar_id', both()],
          ...inWindow,
          ['time_zone', 'Europe/Berlin'],
          ['limit', '3'],
          ['cursor', cursor],
        ],
      ];
      for (const query of variants) invalid(await problem(query, 400));
      invalid(
        await problem([['calendar_id', both()], ...inWindow, ['cursor', cursor]], 400, otherGrantToken),
      );
      const [body, signature] = cursor.split('.') as [string, string];
      const tampered = [
        `${body}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`,
        `${body.slice(0, -1)}${body.endsWith('A') ? 'B' : 'A'}.${signature}`,
        'not-a-cursor',
        'a'.repeat(1025),
      ];
      for (const value of tampered) {
        invalid(await problem([['calendar_id', both()], ...inWindow, ['cursor', value]], 400));
      }
      // The same request with the same grant continues where the first page ended.
      const second = await ok([['calendar_id', both()], ...inWindow, ['limit', '3'], ['cursor', cursor]]);
      assert.deepEqual(second.data, workEvents().slice(3, 6));
    });

    it('accepts the cursor with the calendar ids in another order or written another way', async () => {
      const first = await ok([['calendar_id', both()], ...inWindow, ['limit', '3']]);
      const second = await ok([
        ['calendar_id', cal.many!],
        ['calendar_id', cal.work!],
        ['start', '2026-03-02T01:00:00+01:00'],
        ['end', windowEnd],
        ['limit', '3'],
        ['cursor', first.meta.nextCursor!],
      ]);
      assert.deepEqual(second.data, workEvents().slice(3, 6));
    });

    it('refuses cursor and limit given twice', async () => {
      const first = await ok([['calendar_id', both()], ...inWindow, ['limit', '3']]);
      const cursor = first.meta.nextCursor!;
      const twiceCursor = await problem(
        [['calendar_id', both()], ...inWindow, ['cursor', cursor], ['cursor', cursor]],
        400,
      );
      assert.equal(twiceCursor.code, 'invalid_request');
      assert.equal(twiceCursor.field, 'cursor');
      const twiceLimit = await problem(
        [['calendar_id', both()], ...inWindow, ['limit', '3'], ['limit', '3']],
        400,
      );
      assert.equal(twiceLimit.code, 'invalid_request');
      assert.equal(twiceLimit.field, 'limit');
    });
  });

  describe('permission', () => {
    const refused = (body: Record<string, unknown>, calendarIds: string[]) =>
      assert.deepEqual(body, {
        type: 'about:blank',
        title: 'Forbidden',
        status: 403,
        code: 'calendar_not_permitted',
        detail:
          'These calendar ids are unknown to this grant: use the ids list_calendars returns (GET /v1/calendars on REST), not calendar names.',
        instance: '/v1/events',
        calendarIds,
      });

    it('answers an unknown id and another person’s calendar alike, with 403 and nothing read', async () => {
      const unknown = 'cal_AAAAAAAAAAAAAAAAAAAAAA';
      refused(await problem([['calendar_id', unknown], ...inWindow], 403), [unknown]);
      // Bo's calendar: not in Ana's grant …
      refused(await problem([['calendar_id', boCalendar], ...inWindow], 403), [boCalendar]);
      // … and not reachable even by a grant record that names it.
      refused(await problem([['calendar_id', boCalendar], ...inWindow], 403, boToken), [boCalendar]);
    });

    it('refuses the whole request when one of several ids is not permitted', async () => {
      refused(await problem([['calendar_id', `${cal.work},nope,${boCalendar}`], ...inWindow], 403), [
        'nope',
        boCalendar,
      ]);
    });

    it('refuses Ana’s own calendar when this grant does not include it', async () => {
      const { token: narrow } = await grantToken(t.ctx, {
        userId: anaId,
        workspaceId,
        calendars: [{ calendarId: cal.work!, detailLevel: 'full' }],
        resource: 'v1',
      });
      refused(await problem([['calendar_id', cal.team!], ...inWindow], 403, narrow), [cal.team!]);
    });

    it('checks permission before the time zone', async () => {
      refused(await problem([['calendar_id', `${cal.floating},nope`], ...inWindow], 403), ['nope']);
    });
  });

  describe('time zones', () => {
    it('refuses a CalDAV calendar without zone when no time_zone is given: 400 time_zone_required', async () => {
      for (const ids of [cal.floating!, `${cal.work},${cal.floating}`]) {
        const body = await problem([['calendar_id', ids], ...inWindow], 400);
        assert.deepEqual(body, {
          type: 'about:blank',
          title: 'Bad Request',
          status: 400,
          code: 'time_zone_required',
          detail: '"Floating" has no known time zone: give the user\'s IANA time zone.',
          instance: '/v1/events',
          calendarIds: [cal.floating],
        });
      }
    });

    it('places floating and all-day times in the time_zone given, never another', async () => {
      const floatingCoffee = (timeZone: string) =>
        ok([
          ['calendar_id', cal.floating!],
          ['start', '2026-03-02T07:30:00Z'],
          ['end', '2026-03-02T08:30:00Z'],
          ['time_zone', timeZone],
        ]);
      // 09:00 in Paris is 08:00Z, inside; 09:00 in Auckland is the previous day, outside.
      assert.deepEqual(await floatingCoffee('Europe/Paris'), {
        data: [
          seen('floating', 'f1', {
            title: 'Floating coffee',
            start: '2026-03-02T09:00:00+01:00',
            duration: 'PT1H',
            ...timed,
            ...readOnlyRights,
          }),
        ],
        meta: { excluded: [] },
      });
      assert.deepEqual(await floatingCoffee('Pacific/Auckland'), { data: [], meta: { excluded: [] } });
      const whole = await ok([
        ['calendar_id', cal.floating!],
        ...inWindow,
        ['time_zone', 'America/New_York'],
      ]);
      assert.deepEqual(
        whole.data.map((e) => [e.title, e.start, e.showWithoutTime, e.timeZone]),
        [
          ['Floating coffee', '2026-03-02T09:00:00-05:00', false, undefined],
          ['Day off', '2026-03-03', true, undefined],
        ],
      );
    });

    it('does not need time_zone for calendars with their own zone; given, it is the zone times are shown in', async () => {
      const body = await ok([['calendar_id', cal.work!], ...inWindow, ['time_zone', 'Asia/Tokyo']]);
      const inTokyo = [
        '2026-03-02T17:00:00+09:00',
        '2026-03-03T22:00:00+09:00',
        '2026-03-04T20:00:00+09:00',
        '2026-03-05',
        '2026-03-06T16:00:00+09:00',
        '2026-03-07T16:00:00+09:00',
      ];
      assert.deepEqual(
        body.data,
        workEvents().map((e, i) => ({ ...e, start: inTokyo[i]! })),
        'Berlin events shown with Tokyo offsets, their own zone still named',
      );
    });
  });

  describe('closed query', () => {
    const cases: Array<[string, QueryPairs, string, string]> = [
      [
        'an unknown parameter',
        [['calendar_id', 'x'], ...inWindow, ['calendarId', 'x']],
        'invalid_request',
        'calendarId',
      ],
      [
        'a misspelt parameter',
        [['calendar_id', 'x'], ...inWindow, ['timezone', 'UTC']],
        'invalid_request',
        'timezone',
      ],
      ['no calendar_id', inWindow, 'invalid_request', 'calendar_id'],
      ['an empty calendar_id', [['calendar_id', ''], ...inWindow], 'invalid_request', 'calendar_id'],
      [
        'an empty id between commas',
        [['calendar_id', 'a,,b'], ...inWindow],
        'invalid_request',
        'calendar_id',
      ],
      ['a trailing comma', [['calendar_id', 'a,'], ...inWindow], 'invalid_request', 'calendar_id'],
      [
        'no start',
        [
          ['calendar_id', 'x'],
          ['end', windowEnd],
        ],
        'invalid_request',
        'start',
      ],
      [
        'an empty end',
        [
          ['calendar_id', 'x'],
          ['start', windowStart],
          ['end', ''],
        ],
        'invalid_request',
        'end',
      ],
      [
        'start twice',
        [['calendar_id', 'x'], ...inWindow, ['start', windowStart]],
        'invalid_request',
        'start',
      ],
      [
        'time_zone twice',
        [['calendar_id', 'x'], ...inWindow, ['time_zone', 'UTC'], ['time_zone', 'UTC']],
        'invalid_request',
        'time_zone',
      ],
    ];
    for (const [what, query, code, field] of cases) {
      it(`refuses ${what} with 400 ${code} naming ${field}`, async () => {
        const body = await problem(query, 400);
        assert.equal(body.code, code);
        assert.equal(body.field, field);
        assert.equal(body.status, 400);
        assert.equal(body.instance, '/v1/events');
      });
    }
  });

  describe('the interface', () => {
    for (const path of ['/v1/events', '/v1/calendars', '/v1/openapi.json']) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        it(`${method} ${path} → 405 with Allow: GET`, async () => {
          const response = await restRequest(t.app, { method, url: path, token });
          assert.equal(response.status, 405);
          assert.equal(response.headers.allow, 'GET');
          assert.match(response.contentType, /^application\/problem\+json/);
          assert.equal(response.body.code, 'method_not_allowed');
          assert.equal(response.body.status, 405);
        });
      }
    }

    it('answers 405 before authentication, the same with and without a token', async () => {
      const bare = await restRequest(t.app, { method: 'DELETE', url: '/v1/events?calendar_id=x' });
      assert.equal(bare.status, 405);
      assert.equal(bare.headers.allow, 'GET');
    });

    for (const path of [
      '/v1/anything-else',
      '/v1',
      '/v1/',
      '/v1/events/',
      '/v1/events/evt_x',
      '/v1/calendars/cal_x',
      '/v1/calendars/cal_x/events',
      '/v1/availability',
      '/v1/freebusy',
      '/v1/events/evt_x/respond',
      '/v2/events',
    ]) {
      it(`GET ${path} → 404 problem+json`, async () => {
        const response = await restRequest(t.app, { url: path, token });
        assert.equal(response.status, 404);
        assert.match(response.contentType, /^application\/problem\+json/);
        assert.equal(response.body.code, 'not_found');
      });
    }

    it('has no write route under /v1 at all', async () => {
      const writes = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
      const paths = [
        '/v1/events',
        '/v1/calendars',
        '/v1/events/evt_x',
        '/v1/calendars/cal_x/events',
        '/v1/availability',
      ];
      for (const method of writes) {
        for (const url of paths) {
          assert.equal(t.app.hasRoute({ method, url }), false, `${method} ${url}`);
          const response = await restRequest(t.app, { method, url, token });
          assert.ok([404, 405].includes(response.status), `${method} ${url}: ${response.status}`);
        }
      }
      // The route table lists /v1 for GET (a control for the check below) and for nothing else.
      assert.match(t.app.printRoutes({ method: 'GET', commonPrefix: false }), /v1\/events \(GET\)/);
      for (const method of writes) {
        const table = t.app.printRoutes({ method, commonPrefix: false });
        assert.doesNotMatch(table, /v1/, `${method} routes: ${table}`);
      }
    });

    it('refuses a token for /mcp at /v1 with 401 invalid_token, and a /v1 token at /mcp', async () => {
      for (const url of [
        '/v1/calendars',
        `/v1/events?calendar_id=${cal.work}&start=${windowStart}&end=${windowEnd}`,
      ]) {
        const response = await restRequest(t.app, { url, token: mcpToken });
        assert.equal(response.status, 401);
        assert.equal(response.body.code, 'invalid_token');
        assert.match(String(response.headers['www-authenticate']), /^Bearer error="invalid_token"/);
        assert.match(
          String(response.headers['www-authenticate']),
          /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/v1"/,
        );
      }
      const atMcp = await t.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      assert.equal(atMcp.statusCode, 401);
    });

    it('refuses a missing or malformed bearer with 401', async () => {
      for (const authorization of [undefined, 'Basic abc', 'Bearer', 'Bearer not.a.jwt']) {
        const response = await t.app.inject({
          method: 'GET',
          url: '/v1/calendars',
          headers: authorization === undefined ? {} : { authorization },
        });
        assert.equal(response.statusCode, 401, String(authorization));
        assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      }
    });
  });
});
