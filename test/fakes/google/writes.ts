/**
 * The fake's events.insert, events.patch and events.delete, as the Calendar API v3 reference
 * documents them: a client-chosen id (base32hex, 5–1024 characters) that is taken — even by a
 * deleted event — answers 409 `duplicate`; `If-Match` with another etag answers 412
 * `conditionNotMet`; patch merges the given members (objects member by member, arrays whole,
 * null clears); an instance id (`{master}_{start}`) patches or cancels that instance alone,
 * as an exception; deleting a master takes its instances with it. Writes need writer access
 * (403 `requiredAccessLevel`) and every write gives a new etag. Attendees need an e-mail (400
 * `required`); with `sendUpdates=all` (or `externalOnly`) the organizer's writes notify the guests
 * (invitations, updates, cancellations) and an attendee's change tells the organizer, as
 * `notices` records; without it (the default is `none`) nobody is told.
 */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type {
  GoogleAccessRole,
  GoogleAttendee,
  GoogleEvent,
  GoogleEventDateTime,
} from '../../../src/providers/google/wire.ts';
import { organizerNotices } from '../guestNotices.ts';
import { type FakeResponse, googleError, json } from './http.ts';
import { formatDateTime, instantOf, recurrenceProblem } from './recurrence.ts';

/** An event as the API serves it now: stored, or an instance of a stored series. */
export interface FoundEvent {
  event: GoogleEvent;
  /** Held under its own id (single events, masters, exceptions); false for plain instances. */
  stored: boolean;
  deleted: boolean;
}

/** A message Google would have e-mailed about a write. */
export interface GoogleNotice {
  kind: 'invitation' | 'update' | 'cancellation' | 'reply';
  calendarId: string;
  eventId: string;
  to: string;
}

/** What the writes need of the fake's calendars. */
export interface EventStore {
  /** Records the messages a write sent. */
  notify(notices: GoogleNotice[]): void;
  find(calendarId: string, eventId: string): FoundEvent | undefined;
  storedEvents(calendarId: string): FoundEvent[];
  /** Stores under `event.id` with a new etag (an `etag` member would be kept: leave it out). */
  putEvent(calendarId: string, event: GoogleEvent): GoogleEvent;
  deleteEvent(calendarId: string, eventId: string): void;
  accessRole(calendarId: string): GoogleAccessRole;
  timeZone(calendarId: string): string;
}

export interface WriteRequest {
  method: string;
  calendarId: string;
  eventId?: string;
  body: string;
  query: URLSearchParams;
  ifMatch?: string | string[];
  /** A change made by someone else (a test's doing): no access check. */
  asOwner?: boolean;
}

type Fields = Record<string, unknown>;

const base32hexId = /^[0-9a-v]{5,1024}$/;
const sendUpdatesValues = new Set(['all', 'externalOnly', 'none']);
/** Members Google sets itself; a client's values are ignored. */
const serverOwned = [
  'kind',
  'etag',
  'htmlLink',
  'created',
  'updated',
  'recurringEventId',
  'originalStartTime',
] as const;
/** Members an exception keeps as its own when its series changes. */
const ownTiming = new Set(['id', 'start', 'end', 'recurrence', 'attendeesOmitted', ...serverOwned]);

const gone = () =>
  googleError(410, { reason: 'deleted', domain: 'global', message: 'Resource has been deleted' });
const invalid = (message: string) => googleError(400, { reason: 'invalid', domain: 'global', message });

export function handleWrite(store: EventStore, request: WriteRequest): FakeResponse {
  const { method, calendarId, eventId } = request;
  if (!request.asOwner && !['owner', 'writer'].includes(store.accessRole(calendarId))) {
    return googleError(403, {
      reason: 'requiredAccessLevel',
      domain: 'calendar',
      message: 'You need to have writer access to this calendar.',
    });
  }
  const sendUpdates = request.query.get('sendUpdates');
  if (sendUpdates !== null && !sendUpdatesValues.has(sendUpdates)) {
    return googleError(400, { reason: 'invalidParameter', message: 'Invalid value for: sendUpdates' });
  }
  const ifMatch = [request.ifMatch ?? []].flat()[0];
  const notifying = sendUpdates === 'all' || sendUpdates === 'externalOnly';
  const before = eventId === undefined ? undefined : store.find(calendarId, eventId)?.event;
  const response = apply(store, request, ifMatch);
  if (notifying && response.status < 300) {
    const after = response.status === 204 ? undefined : (JSON.parse(String(response.body)) as GoogleEvent);
    store.notify(noticesOf(calendarId, method, before, after));
  }
  return response;
}

function apply(store: EventStore, request: WriteRequest, ifMatch: string | undefined): FakeResponse {
  const { method, calendarId, eventId } = request;
  if (method === 'DELETE' && eventId !== undefined) return remove(store, calendarId, eventId, ifMatch);
  if (method !== 'POST' && method !== 'PATCH')
    return googleError(405, { reason: 'methodNotAllowed', message: 'Not supported by the fake' });
  const body = parseObject(request.body);
  if (body === undefined) return googleError(400, { reason: 'parseError', message: 'Parse Error' });
  const reminders = remindersProblem(body.reminders);
  if (reminders !== undefined) return invalid(reminders);
  // Without conferenceDataVersion=1 Google ignores conference data in the body.
  if (request.query.get('conferenceDataVersion') !== '1') delete body.conferenceData;
  if (
    body.attendees !== undefined &&
    (!Array.isArray(body.attendees) ||
      body.attendees.some((attendee) => !isObject(attendee) || !attendee.email))
  )
    return googleError(400, { reason: 'required', domain: 'global', message: 'Missing attendee email.' });
  if (method === 'POST' && eventId === undefined) return insert(store, calendarId, body);
  if (method === 'PATCH' && eventId !== undefined) return patch(store, calendarId, eventId, body, ifMatch);
  return googleError(404);
}

/** The guests of an event: every attendee but the organizer (and the calendar itself). */
const guestsOf = (event: GoogleEvent | undefined): string[] =>
  (event?.attendees ?? [])
    .filter((attendee) => !attendee.organizer && !attendee.self && attendee.email !== event?.organizer?.email)
    .map((attendee) => attendee.email!.toLowerCase());

/**
 * What Google tells people of a write: the organizer's new event invites its guests, a change
 * updates those who stay, invites the added and cancels for the removed, a deletion cancels
 * for all; an attendee's own change (an answer) goes to the organizer.
 */
function noticesOf(
  calendarId: string,
  method: string,
  before: GoogleEvent | undefined,
  after: GoogleEvent | undefined,
): GoogleNotice[] {
  const event = after ?? before;
  const eventId = event?.id ?? '';
  const to = (kind: GoogleNotice['kind'], emails: string[]) =>
    emails.map((email): GoogleNotice => ({ kind, calendarId, eventId, to: email }));
  const organizer = event?.organizer;
  if (organizer?.self !== true) {
    return method === 'PATCH' && organizer?.email ? to('reply', [organizer.email]) : [];
  }
  const [was, is] = [guestsOf(before), guestsOf(after)];
  return organizerNotices(method, was, is).map(({ kind, to: email }) => ({
    kind,
    calendarId,
    eventId,
    to: email,
  }));
}

function insert(store: EventStore, calendarId: string, body: Fields): FakeResponse {
  const id = body.id ?? newId();
  if (typeof id !== 'string' || !base32hexId.test(id)) return invalid('Invalid resource id value.');
  if (store.find(calendarId, id) !== undefined)
    return googleError(409, { reason: 'duplicate', message: 'The requested identifier already exists.' });
  const event = withoutServerOwned(body) as GoogleEvent;
  const refused = event.recurrence === undefined ? undefined : recurrenceProblem(event);
  if (refused !== undefined) return invalid(refused);
  const times = settleTimes(event, body, store.timeZone(calendarId));
  if ('status' in times) return times;
  const conference = conferenceOf(event.conferenceData);
  if (typeof conference === 'string') return invalid(conference);
  return json(
    store.putEvent(calendarId, {
      ...event,
      ...conference,
      ...times,
      id,
      status: event.status ?? 'confirmed',
    }),
  );
}

/** What Google refuses in `reminders` (at most 5 overrides, popup or email, 0 to 40320 minutes). */
function remindersProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) return 'Invalid value for: reminders';
  const overrides = value.overrides ?? [];
  if (!Array.isArray(overrides)) return 'Invalid value for: reminders.overrides';
  if (value.useDefault === true && overrides.length > 0)
    return 'Cannot specify both default reminders and overrides at the same time.';
  if (overrides.length > 5) return 'The maximum number of override reminders is 5.';
  for (const reminder of overrides) {
    const { method, minutes } = (reminder ?? {}) as Fields;
    if (method !== 'email' && method !== 'popup') return 'Invalid reminder method.';
    if (!Number.isInteger(minutes) || (minutes as number) < 0 || (minutes as number) > 40320)
      return 'Invalid reminder minutes: from 0 to 40320.';
  }
  return undefined;
}

/** A Meet conference made for a createRequest, as Google answers it (the request kept, its status success). */
function conferenceOf(value: unknown): Pick<GoogleEvent, 'conferenceData' | 'hangoutLink'> | string {
  if (value === undefined) return {};
  const request = (value as { createRequest?: Fields }).createRequest;
  if (request === undefined) return { conferenceData: value as GoogleEvent['conferenceData'] };
  const type = (request.conferenceSolutionKey as Fields | undefined)?.type;
  if (typeof request.requestId !== 'string' || request.requestId === '')
    return 'Invalid conference request id.';
  if (type !== 'hangoutsMeet') return 'Invalid conference type value.';
  const code = newId().slice(0, 10);
  const uri = `https://meet.google.com/${code.slice(0, 3)}-${code.slice(3, 7)}-${code.slice(7)}`;
  return {
    hangoutLink: uri,
    conferenceData: {
      createRequest: { ...request, status: { statusCode: 'success' } },
      conferenceId: code,
      conferenceSolution: { key: { type }, name: 'Google Meet' },
      entryPoints: [{ entryPointType: 'video', uri, label: uri.slice('https://'.length) }],
    } as GoogleEvent['conferenceData'],
  };
}

function patch(
  store: EventStore,
  calendarId: string,
  eventId: string,
  body: Fields,
  ifMatch: string | undefined,
): FakeResponse {
  const found = writable(store, calendarId, eventId, ifMatch);
  if ('status' in found) return found;
  const before = found.event;
  if (before.recurringEventId !== undefined && body.recurrence !== undefined)
    return invalid('Cannot change the recurrence of an instance.');
  const merged = merge(before as Fields, withoutServerOwned(body)) as GoogleEvent;
  if (body.attendeesOmitted === true && Array.isArray(body.attendees)) {
    // Only the attendees sent change (Google: "used to only update the participant's response").
    merged.attendees = mergeAttendees(before.attendees ?? [], body.attendees as GoogleAttendee[]);
  }
  if (before.attendeesOmitted === undefined) delete merged.attendeesOmitted;
  const times = settleTimes(merged, body, store.timeZone(calendarId));
  if ('status' in times) return times;
  const { etag: _, ...changed } = { ...merged, ...times, id: eventId };
  const saved = store.putEvent(calendarId, changed);
  if (found.stored && before.recurrence !== undefined) followSeries(store, calendarId, before, saved, body);
  return json(saved);
}

function remove(
  store: EventStore,
  calendarId: string,
  eventId: string,
  ifMatch: string | undefined,
): FakeResponse {
  const found = writable(store, calendarId, eventId, ifMatch);
  if ('status' in found) return found;
  const { etag: _, ...event } = found.event;
  if (event.recurringEventId !== undefined) {
    // One instance: it stays as a cancelled exception, so the series skips it.
    if (event.status === 'cancelled') return gone();
    store.putEvent(calendarId, { ...event, status: 'cancelled' });
    return { status: 204 };
  }
  store.deleteEvent(calendarId, eventId);
  for (const exception of store.storedEvents(calendarId)) {
    if (!exception.deleted && exception.event.recurringEventId === eventId)
      store.deleteEvent(calendarId, exception.event.id ?? '');
  }
  return { status: 204 };
}

/** The event a PATCH or DELETE may change: 404 unknown, 410 deleted, 412 at another etag. */
function writable(store: EventStore, calendarId: string, eventId: string, ifMatch: string | undefined) {
  const found = store.find(calendarId, eventId);
  if (found === undefined) return googleError(404);
  if (found.deleted) return gone();
  if (ifMatch === undefined || ifMatch === '*' || ifMatch === found.event.etag) return found;
  return googleError(412, { reason: 'conditionNotMet', domain: 'global', message: 'Precondition Failed' });
}

/**
 * Google's rules for start and end: both dates or both date-times, a date-time without an offset
 * only with a zone, the end after the start. Date-times come back with the offset of their zone.
 */
function settleTimes(
  event: GoogleEvent,
  sent: Fields,
  calendarZone: string,
): { start: GoogleEventDateTime; end: GoogleEventDateTime } | FakeResponse {
  const { start, end } = event;
  if (start === undefined) return googleError(400, { reason: 'required', message: 'Missing start time.' });
  if (end === undefined) return googleError(400, { reason: 'required', message: 'Missing end time.' });
  for (const [name, value] of [
    ['start', start],
    ['end', end],
  ] as const) {
    // Stored seeds may lean on the calendar's zone; what a client sends may not.
    if (sent[name] !== undefined && value.dateTime && !hasOffset(value.dateTime) && !value.timeZone)
      return invalid(`Missing time zone definition for ${name} time.`);
  }
  const allDay = start.date !== undefined;
  if (
    [start, end].some(
      (value) => (value.date !== undefined) !== allDay || (value.dateTime !== undefined) === allDay,
    )
  )
    return invalid('Start and end times must either both be date or both be dateTime.');
  try {
    if (allDay) {
      const [from, to] = [start.date, end.date].map((date) => Temporal.PlainDate.from(date ?? ''));
      if (Temporal.PlainDate.compare(from!, to!) >= 0) return timeRangeEmpty();
      return { start: { date: from!.toString() }, end: { date: to!.toString() } };
    }
    const [from, to] = [start, end].map((value) => normalized(value, calendarZone));
    if (Temporal.Instant.compare(instantOf(from!, calendarZone), instantOf(to!, calendarZone)) >= 0)
      return timeRangeEmpty();
    return { start: from!, end: to! };
  } catch {
    return invalid('Invalid start or end time, or time zone.');
  }
}

const hasOffset = (dateTime: string) => /(?:Z|[+-]\d{2}:\d{2})$/i.test(dateTime);

/** A date-time in its own zone with that zone's offset, as Google returns it. */
function normalized(value: GoogleEventDateTime, calendarZone: string): GoogleEventDateTime {
  const instant = instantOf(value, calendarZone);
  if (value.timeZone === undefined) return { dateTime: instant.toString() };
  return { dateTime: formatDateTime(instant.toZonedDateTimeISO(value.timeZone)), timeZone: value.timeZone };
}

const timeRangeEmpty = () =>
  googleError(400, {
    reason: 'timeRangeEmpty',
    domain: 'calendar',
    message: 'The specified time range is empty.',
  });

/** Exceptions follow a series change in the members they had not changed themselves. */
function followSeries(
  store: EventStore,
  calendarId: string,
  before: GoogleEvent,
  after: GoogleEvent,
  sent: Fields,
): void {
  const members = Object.keys(sent).filter((key) => !ownTiming.has(key)) as Array<keyof GoogleEvent>;
  for (const { event, deleted } of store.storedEvents(calendarId)) {
    if (deleted || event.recurringEventId !== before.id || event.status === 'cancelled') continue;
    const following = members.filter((key) => isDeepStrictEqual(event[key], before[key]));
    if (following.length === 0) continue;
    const { etag: _, ...exception } = event as Fields;
    for (const key of following) {
      if (after[key] === undefined) delete exception[key];
      else exception[key] = after[key];
    }
    store.putEvent(calendarId, exception as GoogleEvent);
  }
}

function mergeAttendees(stored: GoogleAttendee[], sent: GoogleAttendee[]): GoogleAttendee[] {
  const key = (attendee: GoogleAttendee) => attendee.email?.toLowerCase() ?? attendee.id;
  return stored.map((attendee) => sent.find((update) => key(update) === key(attendee)) ?? attendee);
}

/** Patch semantics: objects member by member, anything else replaced, null removes. */
function merge(target: Fields, changes: Fields): Fields {
  const result: Fields = { ...target };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete result[key];
    else if (isObject(value) && isObject(result[key])) result[key] = merge(result[key] as Fields, value);
    else result[key] = structuredClone(value);
  }
  return result;
}

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function withoutServerOwned(body: Fields): Fields {
  const rest = { ...body };
  for (const key of serverOwned) delete rest[key];
  return rest;
}

function parseObject(text: string): Fields | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Google's own ids are base32hex too. */
function newId(): string {
  const alphabet = '0123456789abcdefghijklmnopqrstuv';
  return [...randomBytes(26)].map((byte) => alphabet[byte & 31]).join('');
}
