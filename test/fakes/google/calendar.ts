/**
 * The fake's Calendar API v3 subset: calendarList (list, get), events (list, get, instances;
 * insert, patch and delete in `writes.ts`).
 * Documented behaviour it reproduces: paging with nextPageToken (pages may be smaller than
 * maxResults), timeMin/timeMax as exclusive bounds on end/start, singleEvents expansion with
 * exceptions, orderBy=startTime only with singleEvents, nextSyncToken/syncToken (410 once
 * tokens are expired), 404 notFound, 410 deleted, and the reduced views Google gives to
 * free/busy readers and to readers of private events.
 */
import type {
  GoogleAccessRole,
  GoogleCalendarListEntry,
  GoogleEvent,
  GoogleReminder,
} from '../../../src/providers/google/wire.ts';
import { type FakeRequest, type FakeResponse, googleError, json } from './http.ts';
import { expandSeries, instantOf, sameOriginalStart } from './recurrence.ts';
import { type EventStore, type FoundEvent, handleWrite } from './writes.ts';

export interface FakeCalendarSeed {
  id: string;
  summary: string;
  summaryOverride?: string;
  timeZone: string;
  accessRole: GoogleAccessRole;
  primary?: boolean;
  backgroundColor?: string;
  defaultReminders?: GoogleReminder[];
  /**
   * Events as Google stores them: single events, series masters (`recurrence:
   * ['RRULE:FREQ=WEEKLY;COUNT=4']`, start with timeZone) and exceptions (`recurringEventId` +
   * `originalStartTime`; `status: 'cancelled'` removes that instance). Missing kind, etag,
   * status, htmlLink, iCalUID, organizer (this calendar, self) and reminders get defaults.
   */
  events?: GoogleEvent[];
}

interface Stored {
  event: GoogleEvent;
  seq: number;
  deleted: boolean;
}

interface Calendar {
  seed: Omit<FakeCalendarSeed, 'events'>;
  events: Map<string, Stored>;
}

const pageToken = {
  encode: (offset: number) => Buffer.from(JSON.stringify({ offset })).toString('base64url'),
  decode(token: string): number | undefined {
    try {
      const { offset } = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
      return Number.isInteger(offset) && offset >= 0 ? offset : undefined;
    } catch {
      return undefined;
    }
  },
};

export class FakeCalendars implements EventStore {
  readonly #calendars = new Map<string, Calendar>();
  readonly #maxPageSize: number;
  #seq = 0;
  /** Sync tokens issued at or before this sequence number answer 410. */
  #syncFloor = 0;

  constructor(seeds: FakeCalendarSeed[], maxPageSize: number) {
    this.#maxPageSize = maxPageSize;
    for (const seed of seeds) this.addCalendar(seed);
  }

  addCalendar({ events = [], ...seed }: FakeCalendarSeed): void {
    this.#calendars.set(seed.id, { seed, events: new Map() });
    for (const event of events) this.putEvent(seed.id, event);
  }

  /** Inserts or replaces an event; it gets a new etag and sequence number. */
  putEvent(calendarId: string, event: GoogleEvent): GoogleEvent {
    const calendar = this.#calendar(calendarId);
    const id = event.id ?? `evt${this.#seq + 1}`;
    const seq = ++this.#seq;
    const stored: GoogleEvent = {
      kind: 'calendar#event',
      etag: `"${3_181_000_000_000_000 + seq}"`,
      id,
      status: 'confirmed',
      htmlLink: `https://www.google.com/calendar/event?eid=${Buffer.from(`${id} ${calendarId}`).toString('base64url')}`,
      iCalUID: `${event.recurringEventId ?? id}@google.com`,
      organizer: { email: calendarId, displayName: calendar.seed.summary, self: true },
      reminders: { useDefault: true },
      ...event,
    };
    calendar.events.set(id, { event: stored, seq, deleted: false });
    return stored;
  }

  deleteEvent(calendarId: string, eventId: string): void {
    const stored = this.#calendar(calendarId).events.get(eventId);
    if (stored === undefined) throw new Error(`no event ${eventId}`);
    Object.assign(stored, { seq: ++this.#seq, deleted: true });
  }

  /** The event or instance with this id as the API serves it (deleted ones included); undefined when unknown. */
  find(calendarId: string, eventId: string): FoundEvent | undefined {
    const calendar = this.#calendar(calendarId);
    const stored = calendar.events.get(eventId);
    if (stored !== undefined) return { event: stored.event, stored: true, deleted: stored.deleted };
    const instance = this.#expanded(calendar, [...calendar.events.values()], true).find(
      (event) => event.id === eventId,
    );
    return instance && { event: instance, stored: false, deleted: false };
  }

  /** Every event held for the calendar (single events, masters, exceptions), deleted ones too. */
  storedEvents(calendarId: string): FoundEvent[] {
    return [...this.#calendar(calendarId).events.values()].map((entry) => ({
      event: entry.event,
      stored: true,
      deleted: entry.deleted,
    }));
  }

  accessRole(calendarId: string): GoogleAccessRole {
    return this.#calendar(calendarId).seed.accessRole;
  }

  timeZone(calendarId: string): string {
    return this.#calendar(calendarId).seed.timeZone;
  }

  /**
   * Someone else changes an event or one instance behind the client's back: Google's patch
   * semantics, no precondition. Returns the new etag.
   */
  changeEvent(calendarId: string, eventId: string, patch: Record<string, unknown>): string {
    const response = handleWrite(this, {
      method: 'PATCH',
      calendarId,
      eventId,
      body: JSON.stringify(patch),
      query: new URLSearchParams(),
      asOwner: true,
    });
    if (response.status !== 200) throw new Error(`not a change the fake accepts: ${String(response.body)}`);
    return (JSON.parse(String(response.body)) as GoogleEvent).etag ?? '';
  }

  /** Every sync token issued so far becomes invalid (Google: 410 fullSyncRequired). */
  expireSyncTokens(): void {
    this.#syncFloor = this.#seq;
  }

  /** `path` is relative to `/calendar/v3`. */
  handle(request: FakeRequest, path: string): FakeResponse {
    const segments = path.split('/').slice(1).map(decodeURIComponent);
    const query = request.url.searchParams;
    if (request.method !== 'GET') {
      const calendarId = segments[1] ?? '';
      if (segments[0] !== 'calendars' || segments[2] !== 'events' || segments.length > 4)
        return googleError(404);
      if (!this.#calendars.has(calendarId)) return googleError(404);
      return handleWrite(this, {
        method: request.method,
        calendarId,
        eventId: segments[3],
        body: request.body,
        query,
        ifMatch: request.headers['if-match'],
      });
    }
    if (segments[0] === 'users' && segments[1] === 'me' && segments[2] === 'calendarList') {
      if (segments.length === 3) return this.#calendarList(query);
      if (segments.length === 4) return this.#calendarListEntry(segments[3]!);
    }
    if (segments[0] === 'calendars' && segments[2] === 'events') {
      const calendar = this.#calendars.get(segments[1]!);
      if (calendar === undefined) return googleError(404);
      if (segments.length === 3) return this.#eventsList(calendar, query);
      if (segments.length === 4) return this.#eventsGet(calendar, segments[3]!);
      if (segments.length === 5 && segments[4] === 'instances')
        return this.#instances(calendar, segments[3]!, query);
    }
    return googleError(404);
  }

  #calendar(id: string): Calendar {
    const calendar = this.#calendars.get(id);
    if (calendar === undefined) throw new Error(`no calendar ${id}`);
    return calendar;
  }

  #entry({ seed }: Calendar): GoogleCalendarListEntry {
    return {
      kind: 'calendar#calendarListEntry',
      etag: `"${seed.id.length}"`,
      ...seed,
      foregroundColor: '#000000',
      selected: true,
      defaultReminders: seed.defaultReminders ?? [],
    };
  }

  #calendarList(query: URLSearchParams): FakeResponse {
    const entries = [...this.#calendars.values()].map((calendar) => this.#entry(calendar));
    return this.#page(entries, query, 100, 250, { kind: 'calendar#calendarList', etag: '"list"' });
  }

  #calendarListEntry(id: string): FakeResponse {
    const calendar = this.#calendars.get(id);
    return calendar === undefined ? googleError(404) : json(this.#entry(calendar));
  }

  #eventsList(calendar: Calendar, query: URLSearchParams): FakeResponse {
    const singleEvents = query.get('singleEvents') === 'true';
    const syncToken = query.get('syncToken');
    if (query.get('orderBy') === 'startTime' && !singleEvents) {
      return googleError(400, {
        reason: 'invalid',
        message: 'The requested ordering is not available for the particular query.',
      });
    }
    let since: number | undefined;
    if (syncToken !== null) {
      if (query.has('timeMin') || query.has('timeMax') || query.has('orderBy')) {
        return googleError(400, {
          reason: 'invalid',
          message: 'Sync token cannot be combined with these parameters.',
        });
      }
      since = Number(Buffer.from(syncToken, 'base64url').toString('utf8'));
      if (!Number.isInteger(since))
        return googleError(400, { reason: 'invalid', message: 'Invalid sync token value.' });
      if (since <= this.#syncFloor) return googleError(410);
    }
    const zone = query.get('timeZone') ?? calendar.seed.timeZone;
    const stored = [...calendar.events.values()].filter((entry) => since === undefined || entry.seq > since);
    // Incremental results always include deletions, as tombstones.
    const showDeleted = since !== undefined || query.get('showDeleted') === 'true';
    let items = singleEvents
      ? this.#expanded(calendar, stored, showDeleted)
      : this.#asStored(stored, showDeleted);
    const bounds = this.#bounds(query);
    if ('status' in bounds) return bounds;
    items = items.filter((event) => event.status === 'cancelled' || overlaps(event, bounds, zone));
    // Free/busy readers see busy time only.
    if (calendar.seed.accessRole === 'freeBusyReader')
      items = items.filter((e) => e.transparency !== 'transparent');
    if (query.get('orderBy') === 'startTime') {
      items.sort((a, b) =>
        Temporal.Instant.compare(instantOf(a.start ?? {}, zone), instantOf(b.start ?? {}, zone)),
      );
    }
    return this.#page(
      items.map((event) => this.#view(calendar, event)),
      query,
      250,
      2500,
      {
        kind: 'calendar#events',
        etag: `"${this.#seq}"`,
        summary: calendar.seed.summary,
        updated: Temporal.Now.instant().toString(),
        timeZone: calendar.seed.timeZone,
        accessRole: calendar.seed.accessRole,
        defaultReminders: calendar.seed.defaultReminders ?? [],
        // Google issues the next sync position on the last page.
        last: { nextSyncToken: Buffer.from(String(this.#seq)).toString('base64url') },
      },
    );
  }

  #eventsGet(calendar: Calendar, eventId: string): FakeResponse {
    const stored = calendar.events.get(eventId);
    if (stored?.deleted)
      return googleError(410, { reason: 'deleted', domain: 'global', message: 'Resource has been deleted' });
    const event =
      stored?.event ??
      this.#expanded(calendar, [...calendar.events.values()], false).find(
        (instance) => instance.id === eventId,
      );
    return event === undefined ? googleError(404) : json(this.#view(calendar, event));
  }

  #instances(calendar: Calendar, eventId: string, query: URLSearchParams): FakeResponse {
    const master = calendar.events.get(eventId);
    if (master === undefined || master.deleted) return googleError(404);
    const zone = calendar.seed.timeZone;
    const showDeleted = query.get('showDeleted') === 'true';
    let items = master.event.recurrence
      ? this.#expanded(calendar, [master], showDeleted).filter((event) => event.recurringEventId === eventId)
      : [master.event];
    const originalStart = query.get('originalStart');
    if (originalStart !== null) {
      items = items.filter((event) => sameOriginalStart(event.originalStartTime, originalStart, zone));
    }
    const bounds = this.#bounds(query);
    if ('status' in bounds) return bounds;
    items = items.filter((event) => overlaps(event, bounds, zone));
    return this.#page(
      items.map((event) => this.#view(calendar, event)),
      query,
      250,
      2500,
      {
        kind: 'calendar#events',
        etag: `"${this.#seq}"`,
        summary: calendar.seed.summary,
        timeZone: calendar.seed.timeZone,
        accessRole: calendar.seed.accessRole,
        defaultReminders: calendar.seed.defaultReminders ?? [],
      },
    );
  }

  #asStored(stored: Stored[], showDeleted: boolean): GoogleEvent[] {
    return stored
      .filter((entry) => showDeleted || !entry.deleted)
      .map((entry) => (entry.deleted ? tombstone(entry.event) : entry.event))
      .filter((event) => showDeleted || event.status !== 'cancelled');
  }

  /** Masters become their instances, with exceptions in place of the instances they replace. */
  #expanded(calendar: Calendar, stored: Stored[], showDeleted: boolean): GoogleEvent[] {
    const zone = calendar.seed.timeZone;
    const all = [...calendar.events.values()];
    const result: GoogleEvent[] = [];
    for (const entry of stored) {
      const { event } = entry;
      if (entry.deleted) {
        if (showDeleted) result.push(tombstone(event));
        continue;
      }
      if (event.recurringEventId !== undefined && calendar.events.has(event.recurringEventId)) {
        // Exceptions are emitted with their master's expansion, unless only they changed.
        if (!stored.some((other) => other.event.id === event.recurringEventId)) {
          if (showDeleted || event.status !== 'cancelled') result.push(event);
        }
        continue;
      }
      if (event.recurrence === undefined) {
        if (showDeleted || event.status !== 'cancelled') result.push(event);
        continue;
      }
      for (const instance of expandSeries(event, zone)) {
        const exception = all.find(
          (other) =>
            !other.deleted &&
            other.event.recurringEventId === event.id &&
            sameOriginalStart(other.event.originalStartTime, originalStartString(instance), zone),
        )?.event;
        const chosen = exception ?? instance;
        if (showDeleted || chosen.status !== 'cancelled') result.push(chosen);
      }
    }
    return result;
  }

  #bounds(query: URLSearchParams): Bounds | FakeResponse {
    try {
      const timeMin = query.get('timeMin');
      const timeMax = query.get('timeMax');
      const bounds = {
        min: timeMin === null ? undefined : Temporal.Instant.from(timeMin),
        max: timeMax === null ? undefined : Temporal.Instant.from(timeMax),
      };
      if (bounds.min && bounds.max && Temporal.Instant.compare(bounds.min, bounds.max) >= 0) {
        return googleError(400, {
          reason: 'timeRangeEmpty',
          domain: 'calendar',
          message: 'The specified time range is empty.',
        });
      }
      return bounds;
    } catch {
      return googleError(400, { reason: 'badRequest', message: 'Bad Request' });
    }
  }

  /** What the calendar's access role lets the caller see of an event. */
  #view(calendar: Calendar, event: GoogleEvent): GoogleEvent {
    const role = calendar.seed.accessRole;
    if (role === 'freeBusyReader') return pick(event, ['kind', 'id', 'status', 'start', 'end']);
    if (role === 'reader' && event.visibility === 'private') {
      return pick(event, [
        'kind',
        'etag',
        'id',
        'status',
        'start',
        'end',
        'visibility',
        'recurringEventId',
        'originalStartTime',
        'transparency',
      ]);
    }
    return event;
  }

  #page<T>(
    items: T[],
    query: URLSearchParams,
    defaultSize: number,
    largestSize: number,
    envelope: Record<string, unknown> & { last?: Record<string, unknown> },
  ): FakeResponse {
    const { last, ...fields } = envelope;
    const token = query.get('pageToken');
    const offset = token === null ? 0 : pageToken.decode(token);
    if (offset === undefined)
      return googleError(400, { reason: 'invalid', message: 'Invalid page token value.' });
    const asked = Math.min(Number(query.get('maxResults') ?? defaultSize) || defaultSize, largestSize);
    const size = Math.min(asked, this.#maxPageSize);
    const end = offset + size;
    const more = end < items.length;
    return json({
      ...fields,
      ...(more ? { nextPageToken: pageToken.encode(end) } : last),
      items: items.slice(offset, end),
    });
  }
}

interface Bounds {
  min?: Temporal.Instant;
  max?: Temporal.Instant;
}

/** timeMin bounds the end (exclusive), timeMax the start (exclusive). */
function overlaps(event: GoogleEvent, bounds: Bounds, zone: string): boolean {
  if (event.start === undefined || event.end === undefined) return false;
  const start = instantOf(event.start, zone);
  const end = instantOf(event.end, zone);
  if (bounds.max && Temporal.Instant.compare(start, bounds.max) >= 0) return false;
  return !bounds.min || Temporal.Instant.compare(end, bounds.min) > 0;
}

const tombstone = (event: GoogleEvent): GoogleEvent => ({
  kind: 'calendar#event',
  etag: event.etag,
  id: event.id,
  status: 'cancelled',
});

function originalStartString(instance: GoogleEvent): string {
  const original = instance.originalStartTime ?? {};
  return original.date ?? instantOf(original, original.timeZone ?? 'UTC').toString();
}

/** The named members of an event (those it has), as Google returns reduced views. */
function pick(event: GoogleEvent, keys: ReadonlyArray<keyof GoogleEvent>): GoogleEvent {
  return Object.fromEntries(
    keys.filter((k) => event[k] !== undefined).map((k) => [k, event[k]]),
  ) as GoogleEvent;
}
