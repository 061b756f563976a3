/**
 * The benchmark's account: one person in one workspace with a connected Google account of
 * 20 calendars × 1,000 events spread over March 2026, served by the in-memory provider (no
 * network), so the measured time is the service's own read path.
 */
import type { AppContext } from '../src/context.ts';
import type { CalendarProvider } from '../src/providers/port.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  seedMemoryAccount,
} from '../test/helpers/memoryCalendars.ts';
import { seedUser, seedWorkspace } from '../test/helpers/seed.ts';
import { withChangeLog } from './changeLog.ts';

export const calendarCount = 20;
/** Calendars of the memory row: 100 × 1,000 events held in the copies. */
export const heldCalendars = 100;
export const eventsPerCalendar = 1000;
/** Every `matchEvery`-th title carries the search word: 2,000 matches of 20,000. */
export const matchEvery = 10;
export const searchWord = 'budget';
/** March 2026 in full: 744 elapsed hours, the longest window a read accepts. */
export const window = { start: '2026-03-01T00:00:00Z', end: '2026-04-01T00:00:00Z' };

const topics = [
  'Weekly sync with the platform team',
  'Customer call: onboarding follow-up',
  'Design review of the new settings page',
  'One-on-one',
  'Hiring panel for the backend position',
  'Quarterly planning workshop',
  'Incident retrospective',
  'Lunch with the sales team',
];

// Realistic size: a few hundred characters, like an invitation's agenda.
const description = (i: number) =>
  `Agenda:\n1. Status of the open items from last time (see the shared notes).\n2. ${topics[i % topics.length]}: decisions needed before the end of the week.\n3. Risks and dependencies on other teams.\n\nJoin from the meeting room or with the link in the invitation. Please read the document beforehand and add your questions at the end. Ref #${1000 + i}.`;

/** The c-th calendar of the account: its events made anew on each call. */
export function benchCalendar(c: number): MemoryCalendar {
  const occurrences = Array.from({ length: eventsPerCalendar }, (_, i) => {
    // ~32 a day, all inside the window in Berlin time (07:00–18:45 local).
    const day = 1 + (i % 31);
    const hour = 7 + ((i * 7 + c) % 12);
    const minute = ((i * 13) % 4) * 15;
    const title =
      i % matchEvery === 0
        ? `${topics[(i + c) % topics.length]}: ${searchWord} review`
        : topics[(i + c) % topics.length]!;
    return occurrence({
      start: `2026-03-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00`,
      timeZone: 'Europe/Berlin',
      duration: i % 3 === 0 ? 'PT30M' : 'PT1H',
      title,
      description: description(i),
      locations: [{ name: `Room ${1 + ((i + c) % 9)}, 3rd floor` }],
    });
  });
  return { name: `Calendar ${c + 1}`, timeZone: 'Europe/Berlin', occurrences };
}

const providerCalendarId = (c: number) => `cal-${c + 1}@group.calendar.google.com`;

/** A provider holding `count` such calendars, with a change log (bench/changeLog.ts). */
export const benchCalendars = (count: number) => {
  const calendars = new Map(
    Array.from({ length: count }, (_, c) => [providerCalendarId(c), benchCalendar(c)]),
  );
  return withChangeLog(memoryProvider('google', calendars), calendars);
};

let built: ReturnType<typeof benchCalendars> | undefined;

/**
 * The provider to put in the AppContext, made when first asked for; `seedAccount` stores its
 * account once the app's database exists.
 */
export const benchProvider = () => (built ??= benchCalendars(calendarCount));

/**
 * A provider of `count` such calendars that makes each one's events anew when asked and keeps
 * none: in a process that measures the service's memory, the provider's 20,000 events or more
 * (a remote calendar's, in a deployment) are not counted with it.
 */
export function madeWhenAsked(count: number): CalendarProvider<'google'> {
  const ids = Array.from({ length: count }, (_, c) => providerCalendarId(c));
  return {
    kind: 'google',
    listCalendars: async () =>
      ids.map((id, c) => ({
        providerCalendarId: id,
        name: `Calendar ${c + 1}`,
        timeZone: 'Europe/Berlin',
        primary: false,
        access: 'owner' as const,
      })),
    listEvents: async (_account, calendar) => ({
      occurrences: benchCalendar(ids.indexOf(calendar.providerCalendarId)).occurrences,
      skipped: [],
    }),
    getEvent: async () => undefined,
  };
}

export async function seedAccount(
  ctx: AppContext,
  provider: CalendarProvider<'google'> = benchProvider(),
): Promise<{ userId: string; workspaceId: string; calendarIds: string[] }> {
  const userId = await seedUser(ctx.db, 'bench@example.test');
  const workspaceId = await seedWorkspace(ctx.db, 'Bench', [[userId, 'owner']]);
  const calendarIds = await seedMemoryAccount(ctx, { userId, workspaceId }, provider);
  return { userId, workspaceId, calendarIds };
}
