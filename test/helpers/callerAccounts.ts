/**
 * The caller's own Google and Microsoft accounts in the scheduling tests: Ana of Acme with her
 * primary calendar on the Google fake and her default one on the Graph fake, both reached through
 * the real adapters and connected as consent connects them, beside Acme's members whose
 * calendars live in memory. What each fake tells of other people (freeBusy, getSchedule, rooms)
 * each test sets itself.
 */
import { addConnection } from '../../src/calendars/connections/connections.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import type { GoogleEvent } from '../../src/providers/google/wire.ts';
import { createMicrosoftProvider } from '../../src/providers/microsoft/adapter.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { type FakeCalendarSeed, FakeGoogle } from '../fakes/google.ts';
import { FakeGraph } from '../fakes/graph.ts';
import type { TestApp } from './app.ts';
import { memoryProvider, seedMemoryAccount } from './memoryCalendars.ts';
import { berlin, berlinCalendar, seedAcme, startSchedulingApp, sundayClock } from './schedulingWorld.ts';

const anaEmail = 'ana@acme.example';

/** Google with Ana's primary calendar holding `events`, and `others` she can see besides. */
export const startAnaGoogle = (events: GoogleEvent[], others: FakeCalendarSeed[] = []) =>
  FakeGoogle.start({
    calendars: [
      { id: anaEmail, summary: 'Ana', timeZone: berlin, accessRole: 'owner', primary: true, events },
      ...others,
    ],
  });

/** Graph with Ana and her default calendar. */
export const startAnaGraph = () =>
  FakeGraph.start({
    users: [{ email: anaEmail, calendars: [{ id: 'own', name: 'Calendar', isDefaultCalendar: true }] }],
  });

export interface CallerWorldOptions {
  google?: FakeGoogle;
  graph?: FakeGraph;
  /** Acme's members besides Ana, each with one calendar (over CalDAV, in memory) holding these events. */
  members: Record<string, ProviderOccurrence[]>;
  /** What Ana's Microsoft account was granted, when an administrator consented to more. */
  graphScopes?: string[];
  env?: Record<string, string>;
}

type Connected = Awaited<ReturnType<typeof addConnection>>;

export interface CallerWorld {
  t: TestApp;
  workspaceId: string;
  ana: string;
  /** The members' user ids, in the order given. */
  members: string[];
  /** Ana's accounts, connected on the fakes given. */
  viaGoogle?: Connected;
  viaGraph?: Connected;
}

/**
 * The app on the Sunday clock with the real adapters on the fakes (retrying without waiting) and
 * the members' calendars over CalDAV in memory; Acme seeded with Ana as its owner, Ana's
 * accounts connected, each member's calendar connected.
 */
export async function startCallerWorld(options: CallerWorldOptions): Promise<CallerWorld> {
  const { google, graph } = options;
  const members = Object.keys(options.members);
  const memberCalendars = new Map(
    Object.entries(options.members).map(([email, events]) => [email, berlinCalendar(email, events)]),
  );
  const clock = sundayClock();
  const http = new ProviderHttp({ baseDelayMs: 1, sleep: async () => {} });
  const caldav = memoryProvider('caldav', memberCalendars);
  const t = await startSchedulingApp(
    {
      ...(google && { google: createGoogleProvider({ http, config: google.config(), clock }) }),
      ...(graph && { microsoft: createMicrosoftProvider({ http, config: graph.config(), clock }) }),
      caldav,
    },
    { clock, env: options.env },
  );
  const {
    workspaceId,
    userIds: [ana, ...memberIds],
  } = await seedAcme(t.ctx.db, [anaEmail, ...members]);
  const owner = { userId: ana, workspaceId };
  const world: CallerWorld = { t, workspaceId, ana, members: memberIds };
  if (google) {
    const tokens = google.oauth.issue();
    world.viaGoogle = await addConnection(t.ctx, owner, { kind: 'google', ...tokens }, 'Google');
  }
  if (graph) {
    const { scopes, ...tokens } = graph.issueTokens(anaEmail, options.graphScopes);
    world.viaGraph = await addConnection(t.ctx, owner, { kind: 'microsoft', ...tokens, scopes }, 'Work');
  }
  for (const [i, userId] of memberIds.entries())
    await seedMemoryAccount(t.ctx, { userId, workspaceId }, caldav, [members[i]!]);
  return world;
}
