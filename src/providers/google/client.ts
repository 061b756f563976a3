/**
 * The Calendar API v3 calls the adapter needs, with paging over `nextPageToken`. A 410 while
 * paging (an expired page or sync position) restarts the listing once from the beginning.
 * Answers are read within a byte limit.
 */
import { calendarLimits } from '../../domain/budget.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { readBoundedText } from '../boundedBody.ts';
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
  /**
   * Every item of one series as Google stores it (singleEvents=false): the master and its
   * exceptions, cancelled ones included, found by the iCalendar UID they share.
   */
  seriesItems(calendarId: string, iCalUID: string): Promise<GoogleEvent[]>;
  /**
   * One page of the sync listing: every instance, deleted ones as `cancelled`, from the
   * beginning (no syncToken) or changed since `syncToken`; `pageToken` continues a listing.
   */
  syncPage(calendarId: string, position: SyncPosition): Promise<GoogleEventList>;
}

export interface SyncPosition {
  syncToken?: string;
  pageToken?: string;
}

/** Items per sync page: each page is one batch the caller applies in one transaction. */
export const syncPageSize = 250;
/** A sync page of 250 events; Google's largest event resources are tens of kilobytes. */
const syncPageBytes = 16 * 1024 * 1024;

export const calendarPath = (calendarId: string): string => `/calendars/${encodeURIComponent(calendarId)}`;

/** A successful answer's JSON, read within `maxBytes`. */
export async function readGoogleJson<T>(response: Response, maxBytes: number): Promise<T> {
  const text = await readBoundedText(response, { maxBytes, what: `${providerName}'s answer` });
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw unreadable(response.status, error);
  }
}

export const unreadable = (status: number, cause?: unknown): AppError =>
  new AppError('provider_unavailable', `${providerName} sent an unreadable answer.`, {
    cause,
    details: { reason: 'bad_response', status },
  });

export function createGoogleClient(session: GoogleSession, apiBaseUrl: string, clock: Clock): GoogleClient {
  async function getJson<T>(
    path: string,
    query: Record<string, string> = {},
    maxBytes = calendarLimits.bytes,
  ): Promise<T> {
    const url = new URL(`${apiBaseUrl}${path}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const response = await session.get(url.href);
    if (!response.ok) throw await googleFailure(response, clock.now());
    return readGoogleJson<T>(response, maxBytes);
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
    async seriesItems(calendarId, iCalUID) {
      const pages = await allPages<GoogleEventList>(`${calendarPath(calendarId)}/events`, {
        iCalUID,
        singleEvents: 'false',
        showDeleted: 'true',
        maxResults: '2500',
      });
      return eventPage(pages).items;
    },
    async syncPage(calendarId, position) {
      // Nothing Google forbids with syncToken (orderBy, timeMin, timeMax, q…); deletions must show.
      const query: Record<string, string> = {
        singleEvents: 'true',
        showDeleted: 'true',
        maxResults: String(syncPageSize),
      };
      // Later pages repeat the syncToken, as Google's sync guide does.
      if (position.syncToken !== undefined) query.syncToken = position.syncToken;
      if (position.pageToken !== undefined) query.pageToken = position.pageToken;
      const page = await getJson<GoogleEventList>(`${calendarPath(calendarId)}/events`, query, syncPageBytes);
      // More items than asked for would make a batch larger than the caller can bound.
      const items: unknown = page?.items;
      if (items !== undefined && (!Array.isArray(items) || items.length > syncPageSize))
        throw unreadable(200);
      return page;
    },
  };
}
