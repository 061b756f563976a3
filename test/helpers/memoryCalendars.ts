/**
 * An in-memory calendar provider behind the real read path (accounts, sealed credentials, ids,
 * masking): for tests of the read surfaces that need exact occurrences or injected failures.
 * The adapters themselves are tested against Radicale and the Google/Graph fakes.
 */
import type {
  CalendarAccess,
  CalendarProvider,
  EditFacts,
  ProviderCalendar,
  ProviderOccurrence,
  SkippedItem,
} from '../../src/calendars/provider.ts';
import type { AppContext } from '../../src/http/context.ts';
import { newId } from '../../src/lib/ids.ts';
import { insertAccount, syncCalendars } from '../../src/store/connectedAccounts.ts';

export interface MemoryCalendar {
  name: string;
  timeZone?: string;
  access?: CalendarAccess;
  occurrences: ProviderOccurrence[];
  /** Thrown by listEvents instead of answering. */
  failure?: Error;
  skipped?: SkippedItem[];
}

export const ownFacts: EditFacts = {
  recurring: false,
  organizer: 'none',
  attendees: false,
  conference: false,
  managedCopy: false,
  version: '"1"',
  userIsAttendee: false,
};

let counter = 0;

/** A timed occurrence with defaults: confirmed, busy, one hour, editable by its owner. */
export function occurrence(fields: Partial<ProviderOccurrence> & { start: string }): ProviderOccurrence {
  counter += 1;
  return {
    providerEventId: `event-${counter}`,
    duration: 'PT1H',
    showWithoutTime: false,
    status: 'confirmed',
    freeBusyStatus: 'busy',
    facts: ownFacts,
    ...fields,
  };
}

/** One provider kind whose calendars live in the map given (keyed by provider calendar id). */
export function memoryProvider<K extends 'caldav' | 'google'>(
  kind: K,
  calendars: Map<string, MemoryCalendar>,
): CalendarProvider<K> {
  const find = (calendar: ProviderCalendar) => {
    const found = calendars.get(calendar.providerCalendarId);
    if (found === undefined) throw new Error(`no memory calendar ${calendar.providerCalendarId}`);
    return found;
  };
  return {
    kind,
    listCalendars: async () =>
      [...calendars.entries()].map(([id, c]) => ({
        providerCalendarId: id,
        name: c.name,
        primary: false,
        access: c.access ?? 'owner',
        ...(c.timeZone === undefined ? {} : { timeZone: c.timeZone }),
      })),
    async listEvents(_account, calendar) {
      const found = find(calendar);
      if (found.failure !== undefined) throw found.failure;
      return { occurrences: found.occurrences, skipped: found.skipped ?? [] };
    },
    getEvent: async (_account, calendar, id, recurrenceId) =>
      find(calendar).occurrences.find((o) => o.providerEventId === id && o.recurrenceId === recurrenceId),
  };
}

/** A connected account of the provider's kind holding the calendars; returns their opaque ids in order. */
export async function seedMemoryAccount<K extends 'caldav' | 'google'>(
  ctx: AppContext,
  owner: { userId: string; workspaceId: string },
  provider: CalendarProvider<K>,
): Promise<string[]> {
  const accountId = newId('acc');
  const credentials =
    provider.kind === 'google'
      ? { kind: 'google', accessToken: 'a', refreshToken: 'r', expiresAt: Number.MAX_SAFE_INTEGER }
      : { kind: 'caldav', serverUrl: 'https://dav.example.test/', username: 'u', password: 'p' };
  await insertAccount(
    ctx.db,
    { id: accountId, ...owner, provider: provider.kind, label: `${provider.kind} in memory`, createdAt: 0 },
    ctx.box.seal(JSON.stringify(credentials), accountId),
  );
  const listed = await provider.listCalendars({
    accountKey: accountId,
    credentials,
    saveCredentials: async () => {},
  } as never);
  const stored = await syncCalendars(ctx.db, accountId, listed, 0);
  return listed.map((l) => stored.find((s) => s.providerCalendarId === l.providerCalendarId)!.id);
}
