/**
 * The person's "Team" calendar of the round-trip suites (test/helpers/roundTrip.ts), the same in
 * each provider: an invitation from the boss (Design review, 2026-03-25 14:00 Berlin) beside the
 * suite's own events, on a real Radicale behind a FaultProxy and on the Google and Graph fakes.
 */
import { systemClock } from '../../src/lib/clock.ts';
import { createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import { createMicrosoftProvider } from '../../src/providers/microsoft/adapter.ts';
import type { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { type FakeCalendarSeed, FakeGoogle } from '../fakes/google.ts';
import { FakeGraph, type FakeGraphEventSeed } from '../fakes/graph.ts';
import { FaultProxy } from './faultProxy.ts';
import { startRadicale } from './radicale.ts';
import { fillRadicale, vcalendar } from './radicaleCalendars.ts';
import { isWrite } from './roundTrip.ts';

export const berlin = 'Europe/Berlin';
export const me = 'person@example.com';
export const boss = 'boss@example.org';
/** Graph's name of the Berlin zone, as Outlook writes it on events. */
export const berlinZone = { zone: berlin, originalStartTimeZone: 'W. Europe Standard Time' };

/** A Google event time in Berlin. */
export const berlinTime = (dateTime: string) => ({ dateTime, timeZone: berlin });

/** On Radicale, logged in as `login`: the calendar's objects are `objects` and the invitation. */
export async function radicaleTeam(http: ProviderHttp, login: string, ...objects: string[][]) {
  const radicale = await startRadicale({ users: { [login]: 'person-password' } });
  const review = [
    'UID:review',
    'DTSTART;TZID=Europe/Berlin:20260325T140000',
    'DTEND;TZID=Europe/Berlin:20260325T150000',
    'SUMMARY:Design review',
    `ORGANIZER;CN=Boss:mailto:${boss}`,
    `ATTENDEE;PARTSTAT=ACCEPTED:mailto:${boss}`,
    `ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:${me}`,
  ];
  await fillRadicale(radicale, [
    { slug: 'team', displayName: 'Team', timeZone: berlin, contents: [vcalendar(...objects, review)] },
  ]);
  const proxy = await FaultProxy.start(radicale.url);
  return {
    proxy,
    providers: { caldav: createCaldavProvider({ http }) },
    credentials: {
      kind: 'caldav' as const,
      serverUrl: proxy.url,
      username: login,
      password: 'person-password',
    },
    writes: () => proxy.requests.filter((r) => isWrite(r.method)).length,
    close: async () => {
      await proxy.close();
      await radicale.stop();
    },
  };
}

/** On the Google fake, the person's primary calendar: `events` and the invitation. */
export async function googleTeam(http: ProviderHttp, events: FakeCalendarSeed['events'] = []) {
  const review = {
    id: 'review',
    summary: 'Design review',
    start: berlinTime('2026-03-25T14:00:00'),
    end: berlinTime('2026-03-25T15:00:00'),
    organizer: { email: boss, displayName: 'Boss' },
    attendees: [
      { email: boss, organizer: true, responseStatus: 'accepted' as const },
      { email: me, self: true, responseStatus: 'needsAction' as const },
    ],
  };
  const google = await FakeGoogle.start({
    user: { email: me },
    calendars: [
      {
        id: me,
        summary: 'Team',
        timeZone: berlin,
        accessRole: 'owner',
        primary: true,
        events: [...(events ?? []), review],
      },
    ],
  });
  return {
    google,
    providers: { google: createGoogleProvider({ http, config: google.config(), clock: systemClock }) },
    credentials: { kind: 'google' as const, ...google.oauth.issue() },
    writes: () => google.requests.filter((r) => isWrite(r.method)).length,
    close: () => google.close(),
  };
}

/** On the Graph fake, the person's default calendar: `events` and the invitation. */
export async function graphTeam(http: ProviderHttp, events: FakeGraphEventSeed[] = []) {
  const review: FakeGraphEventSeed = {
    id: 'review',
    ...berlinZone,
    subject: 'Design review',
    start: '2026-03-25T14:00:00',
    end: '2026-03-25T15:00:00',
    isOrganizer: false,
    organizer: { emailAddress: { address: boss, name: 'Boss' } },
    responseStatus: { response: 'notResponded' },
    attendees: [{ type: 'required', emailAddress: { address: me }, status: { response: 'none' } }],
  };
  const graph = await FakeGraph.start({
    users: [
      {
        email: me,
        calendars: [{ id: 'team', name: 'Team', isDefaultCalendar: true, events: [...events, review] }],
      },
    ],
  });
  return {
    graph,
    providers: {
      microsoft: createMicrosoftProvider({ http, config: graph.config(), clock: systemClock }),
    },
    credentials: { kind: 'microsoft' as const, ...graph.issueTokens(me) },
    writes: () => graph.requests.filter((r) => isWrite(r.method)).length,
    close: () => graph.close(),
  };
}
