/**
 * The fake's Calendar API v3 subset: calendarList (list, without hidden entries unless
 * showHidden; get), events (list, get, instances; insert, patch and delete in `writes.ts`).
 * Documented behaviour it reproduces: paging with nextPageToken (pages may be smaller than
 * maxResults), timeMin/timeMax as exclusive bounds on end/start, singleEvents expansion with
 * exceptions, orderBy=startTime only with singleEvents, 404 notFound, 410 deleted, and the
 * reduced views Google gives to free/busy readers and to readers of private events.
 * Incremental sync (guides/sync, events.list reference): nextSyncToken on the last page only;
 * a syncToken listing returns every item changed since, deletions included as `cancelled`
 * tombstones, paged the same way; the parameters Google forbids with syncToken answer 400;
 * an expired token answers 410 `fullSyncRequired`. Every change is reported to `onChange`
 * (the push channels).
 */
import type {
  GoogleAccessRole,
  GoogleCalendarListEntry,
  GoogleEvent,
  GoogleReminder,
} from '../../../src/providers/google/wire.ts';
import { type FakeRequest, type FakeResponse, googleError, json } from './http.ts';
import { expandSeries, instantOf, sameOriginalStart } from './recurrence.ts';
import type { Route } from './routes.ts';
import { type Listing, PageCursors, SyncTokens } from './syncTokens.ts';
import { type EventStore, type FoundEvent, type GoogleNotice, handleWrite } from './writes.ts';

export interface FakeCalendarSeed {
  id: string;
  summary: string;
  summaryOverride?: string;
  timeZone: string;
  accessRole: GoogleAccessRole;
  primary?: boolean;
  backgroundColor?: string;
  defaultReminders?: GoogleReminder[];
  /** Hidden from the person's list ("Hide from list"): calendarList leaves it out unless `showHidden`. */
  hidden?: boolean;
  /** Shown in the person's calendar view (default true); unticked ones stay in the list. */
  selected?: boolean;
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

/** What the change was to the calendar's events: Google's X-Goog-Resource-State. */
export type ChangeState = 'exists' | 'not_exists';

/** Parameters the events.list reference forbids together with syncToken. */
const notWithSyncToken = [
  'iCalUID',
  'orderBy',
  'privateExtendedProperty',
  'q',
  'sharedExtendedProperty',
  'timeMin',
  'timeMax',
  'updatedMin',
];

export class FakeCalendars implements EventStore {
  /** Every message Google would have sent about the writes so far (`sendUpdates`), in order. */
  readonly notices: GoogleNotice[] = [];
  readonly #calendars = new Map<string, Calendar>();
  readonly #maxPageSize: number;
  readonly #syncTokens = new SyncTokens();
  readonly #cursors = new PageCursors();
  readonly #onChange: (calendarId: string, state: ChangeState) => void;
  #seq = 0;

  constructor(
    seeds: FakeCalendarSeed[],
    maxPageSize: number,
    onChange: (calendarId: string, state: ChangeState) => void = () => {},
  ) {
    this.#maxPageSize = maxPageSize;
    this.#onChange = onChange;
    for (const seed of seeds) this.addCalendar(seed);
  }

  addCalendar({ events = [], ...seed }: FakeCalendarSeed): void {
    this.#calendars.set(seed.id, { seed, events: new Map() });
    for (const event of events) this.putEvent(seed.id, event);
  }

  /** The calendar is gone (deleted, or unshared): its API answers 404, its channels hear `not_exists`. */
  removeCalendar(calendarId: string): void {
    this.#calendar(calendarId);
    this.#calendars.delete(calendarId);
    this.#syncTokens.expire(calendarId);
    this.#onChange(calendarId, 'not_exists');
  }

  notify(notices: GoogleNotice[]): void {
    this.notices.push(...notices);
  }

  has(calendarId: string): boolean {
    return this.#calendars.has(calendarId);
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
    this.#onChange(calendarId, 'exists');
    return stored;
  }

  deleteEvent(calendarId: string, eventId: string): void {
    const stored = this.#calendar(calendarId).events.get(eventId);
    if (stored === undefined) throw new Error(`no event ${eventId}`);
    Object.assign(stored, { seq: ++this.#seq, deleted: true });
    this.#onChange(calendarId, 'exists');
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

  /**
   * Every sync token issued so far (for one calendar, or all) becomes invalid: its next use
   * answers 410 fullSyncRequired, as after Google invalidates tokens.
   */
  expireSyncTokens(calendarId?: string): void {
    this.#syncTokens.expire(calendarId);
  }

  /** The calendarList and events endpoints (not watch). */
  handle(request: FakeRequest, route: Route): FakeResponse {
    const query = request.url.searchParams;
    if (route.kind === 'calendarList') return this.#calendarList(request);
    if (route.kind === 'calendarList.get') return this.#calendarListEntry(route.calendarId ?? '');
    const calendar = this.#calendars.get(route.calendarId ?? '');
    if (calendar === undefined) return googleError(404);
    if (route.kind === 'write') {
      return handleWrite(this, {
        method: request.method,
        calendarId: calendar.seed.id,
        eventId: route.eventId,
        body: request.body,
        query,
        ifMatch: request.headers['if-match'],
      });
    }
    const eventId = route.eventId ?? '';
    if (route.kind === 'events.list') return this.#eventsList(calendar, request, query);
    if (route.kind === 'events.get') return this.#eventsGet(calendar, eventId);
    if (route.kind === 'events.instances') return this.#instances(calendar, eventId, request, query);
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
      selected: seed.selected ?? true,
      defaultReminders: seed.defaultReminders ?? [],
    };
  }

  /** calendarList.list: `showHidden` defaults to false, as Google's reference says. */
  #calendarList(request: FakeRequest): FakeResponse {
    const showHidden = request.url.searchParams.get('showHidden') === 'true';
    const listed = [...this.#calendars.values()].filter((calendar) => showHidden || !calendar.seed.hidden);
    return this.#page(request, () => ({ items: listed.map((calendar) => this.#entry(calendar)) }), 100, 250, {
      kind: 'calendar#calendarList',
      etag: '"list"',
    });
  }

  #calendarListEntry(id: string): FakeResponse {
    const calendar = this.#calendars.get(id);
    return calendar === undefined ? googleError(404) : json(this.#entry(calendar));
  }

  #eventsList(calendar: Calendar, request: FakeRequest, query: URLSearchParams): FakeResponse {
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
      const refused = notWithSyncToken.find((name) => query.has(name));
      if (refused !== undefined)
        return googleError(400, {
          reason: 'invalid',
          message: `${refused} cannot be combined with syncToken.`,
          parameter: refused,
        });
      // "All events deleted since the previous list request will always be in the result set
      // and it is not allowed to set showDeleted to False."
      if (query.get('showDeleted') === 'false')
        return googleError(400, { reason: 'invalid', message: 'Invalid value.', parameter: 'showDeleted' });
      const position = this.#syncTokens.check(syncToken, calendar.seed.id);
      if (position === 'invalid')
        return googleError(400, {
          reason: 'invalid',
          message: 'Invalid sync token value.',
          parameter: 'syncToken',
        });
      // A page of an incremental listing repeats its syncToken, so it too answers 410 once expired.
      if (position === 'expired') return googleError(410, { parameter: 'syncToken' });
      since = position;
    }
    const bounds = this.#bounds(query);
    if ('status' in bounds) return bounds;
    return this.#page(
      request,
      () => {
        const zone = query.get('timeZone') ?? calendar.seed.timeZone;
        const stored = [...calendar.events.values()].filter(
          (entry) => since === undefined || entry.seq > since,
        );
        const showDeleted = since !== undefined || query.get('showDeleted') === 'true';
        let items = singleEvents
          ? this.#expanded(calendar, stored, showDeleted)
          : this.#asStored(stored, showDeleted);
        items = items.filter((event) => event.status === 'cancelled' || overlaps(event, bounds, zone));
        // "iCalUID: Specifies an event ID in the iCalendar format to be provided in the response."
        const iCalUID = query.get('iCalUID');
        if (iCalUID !== null) items = items.filter((event) => event.iCalUID === iCalUID);
        // Free/busy readers see busy time only.
        if (calendar.seed.accessRole === 'freeBusyReader')
          items = items.filter((e) => e.transparency !== 'transparent');
        if (query.get('orderBy') === 'startTime') {
          items.sort((a, b) =>
            Temporal.Instant.compare(instantOf(a.start ?? {}, zone), instantOf(b.start ?? {}, zone)),
          );
        }
        return {
          items: items.map((event) => this.#view(calendar, event)),
          // Google issues the next sync position on the last page: the listing's own position.
          last: { nextSyncToken: this.#syncTokens.issue(calendar.seed.id, this.#seq) },
        };
      },
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

  #instances(
    calendar: Calendar,
    eventId: string,
    request: FakeRequest,
    query: URLSearchParams,
  ): FakeResponse {
    const master = calendar.events.get(eventId);
    if (master === undefined || master.deleted) return googleError(404);
    const zone = calendar.seed.timeZone;
    const bounds = this.#bounds(query);
    if ('status' in bounds) return bounds;
    return this.#page(
      request,
      () => {
        const showDeleted = query.get('showDeleted') === 'true';
        let items = master.event.recurrence
          ? this.#expanded(calendar, [master], showDeleted).filter(
              (event) => event.recurringEventId === eventId,
            )
          : [master.event];
        const originalStart = query.get('originalStart');
        if (originalStart !== null) {
          items = items.filter((event) => sameOriginalStart(event.originalStartTime, originalStart, zone));
        }
        items = items.filter((event) => overlaps(event, bounds, zone));
        return { items: items.map((event) => this.#view(calendar, event)) };
      },
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

  /**
   * Items as stored (singleEvents=false). "Cancelled instances of recurring events (but not the
   * underlying recurring event) will still be included if showDeleted and singleEvents are both
   * False": a cancelled exception is listed, a deleted item only with showDeleted.
   */
  #asStored(stored: Stored[], showDeleted: boolean): GoogleEvent[] {
    return stored
      .filter((entry) => showDeleted || !entry.deleted)
      .map((entry) => (entry.deleted ? tombstone(entry.event) : entry.event))
      .filter((event) => showDeleted || event.status !== 'cancelled' || event.recurringEventId !== undefined);
  }

  /**
   * Masters become their instances, with exceptions in place of the instances they replace.
   * "If showDeleted and singleEvents are both True, only single instances of deleted events
   * (but not the underlying recurring events) are returned": a deleted series is listed as
   * its cancelled instances.
   */
  #expanded(calendar: Calendar, stored: Stored[], showDeleted: boolean): GoogleEvent[] {
    const zone = calendar.seed.timeZone;
    const all = [...calendar.events.values()];
    const result: GoogleEvent[] = [];
    for (const entry of stored) {
      const { event } = entry;
      if (entry.deleted) {
        if (!showDeleted) continue;
        const master =
          event.recurringEventId === undefined ? undefined : calendar.events.get(event.recurringEventId);
        // A deleted series' exceptions are among the instances its own tombstones name.
        if (master?.deleted && stored.includes(master)) continue;
        if (event.recurrence === undefined) result.push(tombstone(event));
        else result.push(...expandSeries(event, zone).map(tombstone));
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

  /**
   * One page of a listing: the first request computes it (`list`), later pages read the same
   * listing through their cursor, whatever changed since.
   */
  #page(
    request: FakeRequest,
    list: () => Omit<Listing<unknown>, 'scope'>,
    defaultSize: number,
    largestSize: number,
    fields: Record<string, unknown>,
  ): FakeResponse {
    const query = request.url.searchParams;
    const token = query.get('pageToken');
    const scope = request.url.pathname;
    const resumed =
      token === null ? { listing: { scope, ...list() }, offset: 0 } : this.#cursors.resume(token, scope);
    if (resumed === undefined)
      return googleError(400, {
        reason: 'invalid',
        message: 'Invalid page token value.',
        parameter: 'pageToken',
      });
    const { listing, offset } = resumed;
    const asked = Math.min(Number(query.get('maxResults') ?? defaultSize) || defaultSize, largestSize);
    const end = offset + Math.min(asked, this.#maxPageSize);
    const more = end < listing.items.length;
    return json({
      ...fields,
      ...(more ? { nextPageToken: this.#cursors.open(listing, end) } : listing.last),
      items: listing.items.slice(offset, end),
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
