/**
 * The application the write-tool suites (test/mcp/) run against: the listening service with
 * in-memory Google calendars whose facts and failures the tests set, fresh for every test, an ICS
 * subscription (no writer), and Ana (owner) and Bob (admin) of one workspace that allows writing.
 */
import { after, before, beforeEach } from 'node:test';
import { defaultPolicy, type Scope } from '../../src/policy/workspacePolicy.ts';
import type { CalendarProvider } from '../../src/providers/port.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from './app.ts';
import { grantToken } from './grantToken.ts';
import { callToolRaw, structured } from './mcpSession.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  ownFacts,
  seedMemoryAccount,
  weeklyOccurrence,
} from './memoryCalendars.ts';
import { seedUser, seedWorkspace } from './seed.ts';

export const berlin = 'Europe/Berlin';
export const window = { start: '2026-03-23T00:00:00+01:00', end: '2026-04-06T00:00:00+02:00' };
export const allScopes: Scope[] = ['calendar:read', 'calendar:write', 'calendar:rsvp'];
export const writeTools = ['create_event', 'update_event', 'delete_event', 'respond_to_event'];

export const weekly = (index: number) => weeklyOccurrence(index, 'Standup');

/** Fresh calendars for every test: the writes change them. */
function seedCalendars(): Map<string, MemoryCalendar> {
  return new Map<string, MemoryCalendar>([
    [
      'work',
      {
        name: 'Work',
        timeZone: berlin,
        occurrences: [
          occurrence({
            providerEventId: 'own',
            start: '2026-03-24T10:00:00',
            timeZone: berlin,
            title: 'Planning',
          }),
          occurrence({
            providerEventId: 'invite',
            start: '2026-03-25T14:00:00',
            timeZone: berlin,
            title: 'Review',
            responseStatus: 'needs-action',
            facts: { ...ownFacts, organizer: 'other', attendees: true, userIsAttendee: true },
          }),
          occurrence({
            providerEventId: 'guests',
            start: '2026-03-26T10:00:00',
            timeZone: berlin,
            title: 'Team lunch',
            organizer: { email: 'ana@example.org', self: true },
            attendees: [
              { email: 'ana@example.org', optional: false, response: 'accepted', self: true },
              { email: 'Bo@example.org', name: 'Bo', optional: false, response: 'accepted', self: false },
              { email: 'cy@example.org', optional: true, response: 'needs-action', self: false },
            ],
            facts: { ...ownFacts, organizer: 'self', attendees: true },
          }),
          occurrence({
            providerEventId: 'meet',
            start: '2026-03-26T15:00:00',
            timeZone: berlin,
            title: 'Call',
            facts: { ...ownFacts, conference: true },
          }),
          occurrence({
            providerEventId: 'private',
            start: '2026-03-27T09:00:00',
            timeZone: berlin,
            title: 'Doctor',
            privacy: 'private',
          }),
          weekly(0),
          weekly(1),
        ],
      },
    ],
    ['shared', { name: 'Shared', timeZone: berlin, access: 'reader', occurrences: [] }],
  ]);
}

/** A person of the workspace with their two calendars' ids. */
export type Writer = { userId: string; workspaceId: string; work: string; shared: string };

/** What the suite's `before` makes, read by the tests once it has run. */
export type WriteToolsApp = {
  t: TestApp;
  mcp: string;
  token: string;
  icsProvider: CalendarProvider<'ics'>;
};

/** Registers the hooks of one suite (call it inside `describe`) and returns what its tests use. */
export function writeToolsSuite() {
  // Filled in by `before`: the tests may hold them from the start.
  const app = {} as WriteToolsApp;
  const ana = {} as Writer;
  const bob = {} as Writer;
  let calendars = seedCalendars();
  // One provider for the whole suite; each test swaps in fresh calendars behind it.
  const provider = memoryProvider('google', {
    get: (id: string) => calendars.get(id),
    entries: () => calendars.entries(),
  } as Map<string, MemoryCalendar>);

  const work = () => calendars.get('work')!;
  const tokenFor = async (
    who: Writer,
    scopes: Scope[],
    level: 'full' | 'titles' | 'busy' = 'full',
    privateDetails = false,
  ) =>
    (
      await grantToken(app.t.ctx, {
        userId: who.userId,
        workspaceId: who.workspaceId,
        calendars: [who.work, who.shared].map((calendarId) => ({ calendarId, detailLevel: level })),
        scopes,
        privateDetails,
      })
    ).token;
  const call = (name: string, args: Record<string, unknown>, as = app.token) =>
    callToolRaw(app.mcp, as, name, args);
  const listed = async (as = app.token) => {
    const result = structured(
      await call('list_events', { calendarIds: [ana.work], ...window, limit: 250 }, as),
    );
    return result.termine as Array<Record<string, string>>;
  };
  const find = async (title: string) => (await listed()).filter((e) => e.title === title);

  before(async () => {
    // An ICS subscription: the adapter has no writer, whatever the feed says about access.
    const feed = {
      ...memoryProvider('caldav', new Map([['feed', { name: 'Feed', timeZone: berlin, occurrences: [] }]])),
    };
    delete feed.writer;
    const icsProvider = { ...feed, kind: 'ics' } as unknown as CalendarProvider<'ics'>;
    const t = await startTestApp({ listen: true, providers: { google: provider, ics: icsProvider } });
    Object.assign(app, { t, mcp: `${t.ctx.config.baseUrl}/mcp`, icsProvider });
    const anaId = await seedUser(t.ctx.db, 'ana@example.org');
    const bobId = await seedUser(t.ctx.db, 'bob@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Writers', [
      [anaId, 'owner'],
      [bobId, 'admin'],
    ]);
    await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, allowedScopes: allScopes }, 0);
    const seed = async (userId: string): Promise<Writer> => {
      const [workId, sharedId] = await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider);
      return { userId, workspaceId, work: workId!, shared: sharedId! };
    };
    Object.assign(ana, await seed(anaId));
    Object.assign(bob, await seed(bobId));
    app.token = await tokenFor(ana, allScopes);
  });
  beforeEach(() => {
    calendars = seedCalendars();
  });
  after(() => app.t?.close());

  return { app, ana, bob, provider, work, tokenFor, call, listed, find };
}
