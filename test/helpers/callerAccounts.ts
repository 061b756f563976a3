/**
 * The caller's own Google and Microsoft accounts in the scheduling tests: Ana of Acme with her
 * primary calendar on the Google fake and her default one on the Graph fake, both reached through
 * the real adapters and connected as consent connects them. What each fake tells of other people
 * (freeBusy, getSchedule, rooms) each test sets itself.
 */
import {
  type ConnectionDeps,
  connectAccount,
  type Owner,
} from '../../src/calendars/connections/connections.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import type { GoogleEvent } from '../../src/providers/google/wire.ts';
import { createMicrosoftProvider } from '../../src/providers/microsoft/adapter.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { type FakeCalendarSeed, FakeGoogle } from '../fakes/google.ts';
import { FakeGraph } from '../fakes/graph.ts';
import type { TestClock } from './clock.ts';
import { berlin } from './schedulingWorld.ts';

export const anaEmail = 'ana@acme.example';

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

/** The real adapters on the fakes, on the app's clock, retrying without waiting. */
export function adaptersOn(clock: TestClock, fakes: { google?: FakeGoogle; graph?: FakeGraph }) {
  const http = new ProviderHttp({ baseDelayMs: 1, sleep: async () => {} });
  return {
    ...(fakes.google && { google: createGoogleProvider({ http, config: fakes.google.config(), clock }) }),
    ...(fakes.graph && { microsoft: createMicrosoftProvider({ http, config: fakes.graph.config(), clock }) }),
  };
}

/** Ana's Google account, connected under `label`. */
export const connectGoogle = (deps: ConnectionDeps, owner: Owner, google: FakeGoogle, label: string) =>
  connectAccount(deps, owner, { kind: 'google', ...google.oauth.issue() }, label);

/** Ana's Microsoft account, connected as "Work"; `scopes` when an administrator consented to more. */
export function connectGraph(deps: ConnectionDeps, owner: Owner, graph: FakeGraph, scopes?: string[]) {
  const { scopes: granted, ...tokens } = graph.issueTokens(anaEmail, scopes);
  return connectAccount(deps, owner, { kind: 'microsoft', ...tokens, scopes: granted }, 'Work');
}
