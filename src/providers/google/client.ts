/**
 * The Calendar API v3 calls the adapter needs, with paging over `nextPageToken`. A 410 while
 * paging (an expired page or sync position) restarts the listing once from the beginning.
 */
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { providerName } from './config.ts';
import { googleFailure, isGone, isMissing } from './errors.ts';
import type { GoogleSession } from './session.ts';
import type {
  GoogleCalendarList,
  GoogleCalendarListEntry,
  GoogleEvent,
  GoogleEventList,
  GoogleReminder,
} from './wire.ts';

export interface EventPage {
  items: GoogleEvent[];
  /** The calendar's zone, which Google sends with every events listing. */
  timeZone?: string;
  defaultReminders: GoogleReminder[];
}

export interface GoogleClient {
  calendarList(): Promise<GoogleCalendarListEntry[]>;
  calendarListEntry(calendarId: string): Promise<GoogleCalendarListEntry>;
  /** Single events (recurrences expanded) overlapping [timeMin, timeMax), by start time. */
  events(
    calendarId: string,
    window: { timeMin: Temporal.Instant; timeMax: Temporal.Instant },
  ): Promise<EventPage>;
  /** undefined when Google says 404 or 410 (deleted). */
  event(calendarId: string, eventId: string): Promise<GoogleEvent | undefined>;
  /** One page of a series' instances; `originalStart` picks the one instance. */
  instances(
    calendarId: string,
    eventId: string,
    query: { originalStart?: string; maxResults?: number },
  ): Promise<EventPage | undefined>;
}

export const calendarPath = (calendarId: string): string => `/calendars/${encodeURIComponent(calendarId)}`;

export function createGoogleClient(session: GoogleSession, apiBaseUrl: string, clock: Clock): GoogleClient {
  async function getJson<T>(path: string, query: Record<string, string> = {}): Promise<T> {
    const url = new URL(`${apiBaseUrl}${path}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const response = await session.get(url.href);
    if (!response.ok) throw await googleFailure(response, clock.now());
    try {
      return (await response.json()) as T;
    } catch (error) {
      throw new AppError('provider_unavailable', `${providerName} sent an unreadable answer.`, {
        cause: error,
        details: { reason: 'bad_response', status: response.status },
      });
    }
  }

  async function orUndefined<T>(read: Promise<T>): Promise<T | undefined> {
    try {
      return await read;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async function allPages<P extends { nextPageToken?: string }>(
    path: string,
    query: Record<string, string>,
    restarted = false,
  ): Promise<P[]> {
    const pages: P[] = [];
    let pageToken: string | undefined;
    try {
      do {
        const page: P = await getJson<P>(path, pageToken === undefined ? query : { ...query, pageToken });
        pages.push(page);
        pageToken = page.nextPageToken;
      } while (pageToken !== undefined);
    } catch (error) {
      if (restarted || pages.length === 0 || !isGone(error)) throw error;
      return allPages<P>(path, query, true);
    }
    return pages;
  }

  const eventPage = (pages: GoogleEventList[]): EventPage => ({
    items: pages.flatMap((page) => page.items ?? []),
    timeZone: pages[0]?.timeZone,
    defaultReminders: pages[0]?.defaultReminders ?? [],
  });

  return {
    async calendarList() {
      const pages = await allPages<GoogleCalendarList>('/users/me/calendarList', { maxResults: '250' });
      return pages.flatMap((page) => page.items ?? []);
    },
    calendarListEntry: (calendarId) =>
      getJson<GoogleCalendarListEntry>(`/users/me/calendarList/${encodeURIComponent(calendarId)}`),
    async events(calendarId, window) {
      const pages = await allPages<GoogleEventList>(`${calendarPath(calendarId)}/events`, {
        singleEvents: 'true',
        orderBy: 'startTime',
        showDeleted: 'false',
        maxResults: '2500',
        timeMin: window.timeMin.toString(),
        timeMax: window.timeMax.toString(),
      });
      return eventPage(pages);
    },
    event: (calendarId, eventId) =>
      orUndefined(getJson<GoogleEvent>(`${calendarPath(calendarId)}/events/${encodeURIComponent(eventId)}`)),
    async instances(calendarId, eventId, query) {
      const params: Record<string, string> = { showDeleted: 'false' };
      if (query.originalStart !== undefined) params.originalStart = query.originalStart;
      if (query.maxResults !== undefined) params.maxResults = String(query.maxResults);
      const path = `${calendarPath(calendarId)}/events/${encodeURIComponent(eventId)}/instances`;
      const page = await orUndefined(getJson<GoogleEventList>(path, params));
      return page && eventPage([page]);
    },
  };
}
