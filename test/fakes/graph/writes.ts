/**
 * Graph's event writes on the fake's seeds: create (with `transactionId` and extended
 * properties), update and delete of an event, a whole series (its master) or one instance
 * (which becomes an exception, or a cancelled index), and the attendee's own answer. Every
 * write gives what it touched a new changeKey. Bodies are checked against the documented
 * property names and values, so a misspelt property is a 400 as at Graph. Attendees need an
 * address and a known type; a PATCH of the collection keeps the answers of those it still names.
 */
import { randomBytes } from 'node:crypto';
import { resolveTzid } from '../../../src/domain/time/zones.ts';
import { badRequest, graphError, type Reply } from './http.ts';
import { seriesOf } from './recurrence.ts';
import {
  type FakeGraphCalendarSeed,
  type FakeGraphEventSeed,
  type FakeGraphException,
  type StoredItem,
  seriesInstances,
  storedEvent,
} from './store.ts';

export type GraphBody = Record<string, unknown>;

/** Properties of `microsoft.graph.event` a client may write (the subset the fake keeps). */
const writable = new Set([
  'subject',
  'body',
  'start',
  'end',
  'isAllDay',
  'location',
  'locations',
  'showAs',
  'sensitivity',
  'categories',
  'importance',
  'isReminderOn',
  'reminderMinutesBeforeStart',
  'attendees',
  'responseRequested',
  'allowNewTimeProposals',
  'hideAttendees',
  'isOnlineMeeting',
  'onlineMeetingProvider',
  'transactionId',
  'singleValueExtendedProperties',
]);
const enums: Record<string, string[]> = {
  showAs: ['free', 'tentative', 'busy', 'oof', 'workingElsewhere', 'unknown'],
  sensitivity: ['normal', 'personal', 'private', 'confidential'],
  importance: ['low', 'normal', 'high'],
  onlineMeetingProvider: ['unknown', 'skypeForBusiness', 'skypeForConsumer', 'teamsForBusiness'],
};

export const newChangeKey = () => randomBytes(15).toString('base64');
// Graph ids are long base64 strings; `=`, `-` and `_` make sure clients encode them.
const newEventId = () => `AAMkAGI2${randomBytes(33).toString('base64url')}AAA=`;

const unknownProperty = (name: string) =>
  graphError(
    400,
    'RequestBodyRead',
    `The property '${name}' does not exist on type 'microsoft.graph.event'. Make sure to only use property names that are defined by the type or mark the type as open type.`,
  );

/** Every event of the calendar with its instances, as stored now. */
export function itemsOf(calendar: FakeGraphCalendarSeed): StoredItem[] {
  return (calendar.events ?? []).map(storedEvent).flatMap((item) => [item, ...seriesInstances(item)]);
}

export const findItem = (calendar: FakeGraphCalendarSeed, id: string): StoredItem | undefined =>
  itemsOf(calendar).find((item) => item.id === id);

/** Whether an `If-Match` header (absent: no condition) matches the item's `@odata.etag`. */
export function matches(ifMatch: string | undefined, item: StoredItem): boolean {
  if (ifMatch === undefined) return true;
  return ifMatch
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag === `W/"${item.changeKey}"` || tag === `"${item.changeKey}"`);
}

/** POST …/events: a new event or series, or the one an earlier POST made with this transactionId. */
export function createEvent(
  calendar: FakeGraphCalendarSeed,
  mailbox: FakeGraphCalendarSeed[],
  body: GraphBody,
): StoredItem | Reply {
  const transactionId = body.transactionId;
  if (typeof transactionId === 'string') {
    for (const other of mailbox) {
      const earlier = other.events?.find((seed) => seed.transactionId === transactionId);
      if (earlier !== undefined) return storedEvent(earlier);
    }
  }
  if (body.start === undefined || body.end === undefined)
    return badRequest('An event needs a start and an end.');
  const seed: FakeGraphEventSeed = { id: newEventId(), start: '', end: '', changeKey: newChangeKey() };
  const { recurrence, ...properties } = body;
  const invalid = applyProperties(seed, properties, undefined);
  if (invalid !== undefined) return invalid;
  if (recurrence !== undefined) {
    const series = seriesOf(recurrence, seed);
    if ('status' in series) return series;
    seed.repeats = series;
  }
  calendar.events ??= [];
  calendar.events.push(seed);
  return storedEvent(seed);
}

/** PATCH: the seed of an event or master, or one instance's exception; a new changeKey. */
export function updateItem(item: StoredItem, body: GraphBody): Reply | undefined {
  if ('transactionId' in body) return badRequest('The transactionId of an event cannot be changed.');
  const target = writeTarget(item);
  const invalid = applyProperties(target, body, item);
  if (invalid !== undefined) return invalid;
  target.changeKey = newChangeKey();
  return undefined;
}

/** DELETE: an event or a whole series goes; an instance becomes a cancelled index of its series. */
export function deleteItem(calendar: FakeGraphCalendarSeed, item: StoredItem): void {
  if (item.index !== undefined) {
    const series = item.seed.repeats!;
    series.cancelled = [...(series.cancelled ?? []), item.index];
    return;
  }
  calendar.events = (calendar.events ?? []).filter((seed) => seed !== item.seed);
}

export type GraphAnswer = 'accept' | 'decline' | 'tentativelyAccept';
const answered: Record<GraphAnswer, string> = {
  accept: 'accepted',
  decline: 'declined',
  tentativelyAccept: 'tentativelyAccepted',
};

/** POST …/accept|decline|tentativelyAccept: the signed-in attendee's own response. */
export function respondTo(
  item: StoredItem,
  answer: GraphAnswer,
  email: string,
  now: Temporal.Instant,
): Reply | undefined {
  const current = { ...item.seed, ...item.overrides };
  if (current.isOrganizer !== false)
    return badRequest(
      "Your request can't be completed. You can't respond to this meeting because you're the meeting organizer.",
    );
  const response = answered[answer];
  const target = writeTarget(item);
  target.responseStatus = { response, time: now.toString() };
  if (Array.isArray(current.attendees)) {
    type Attendee = { emailAddress?: { address?: string } };
    target.attendees = (current.attendees as Attendee[]).map((attendee) =>
      attendee.emailAddress?.address?.toLowerCase() === email.toLowerCase()
        ? { ...attendee, status: { response, time: now.toString() } }
        : attendee,
    );
  }
  target.changeKey = newChangeKey();
  return undefined;
}

/** Where an item's writes go: its seed, or for an instance its (new) exception entry. */
function writeTarget(item: StoredItem): Record<string, unknown> {
  if (item.index === undefined) return item.seed;
  const series = item.seed.repeats!;
  series.exceptions ??= [];
  let exception = series.exceptions.find((candidate) => candidate.index === item.index);
  if (exception === undefined) {
    exception = { index: item.index } satisfies FakeGraphException;
    series.exceptions.push(exception);
  }
  return exception;
}

/** Checks and copies `body` onto `target`; `current` is the item as it is (absent for a create). */
function applyProperties(
  target: Record<string, unknown>,
  body: GraphBody,
  current: StoredItem | undefined,
): Reply | undefined {
  for (const [name, value] of Object.entries(body)) {
    if (!writable.has(name)) return unknownProperty(name);
    const allowed = enums[name];
    if (allowed !== undefined && !allowed.includes(value as string))
      return graphError(400, 'RequestBodyRead', `Cannot convert the literal '${value}' to ${name}.`);
  }
  if (body.body !== undefined) {
    const content = body.body as { contentType?: unknown; content?: unknown } | null;
    if (
      typeof content !== 'object' ||
      content === null ||
      !['text', 'html', undefined].includes(content.contentType as string)
    )
      return badRequest('The body must be an itemBody with contentType text or html.');
  }
  if (body.attendees !== undefined) {
    const refused = attendeesProblem(body.attendees);
    if (refused !== undefined) return refused;
  }
  const timing = timingOf(body, current);
  if (typeof timing === 'object' && 'status' in timing) return timing;

  for (const [name, value] of Object.entries(body)) {
    if (name === 'start' || name === 'end' || name === 'isAllDay') continue;
    if (name === 'location') {
      // Setting `location` replaces the `locations` collection (an empty name removes it).
      const place: Record<string, unknown> = { locationType: 'default', ...(value as object) };
      target.location = place;
      target.locations = place.displayName ? [place] : [];
    } else if (name === 'attendees') {
      target.attendees = withAnswers(value as GraphAttendee[], current);
    } else if (name === 'singleValueExtendedProperties') {
      const kept = (target.singleValueExtendedProperties as Array<{ id: string }> | undefined) ?? [];
      const added = value as Array<{ id: string; value: string }>;
      target.singleValueExtendedProperties = [
        ...kept.filter((property) => !added.some((other) => sameProperty(other.id, property.id))),
        ...added,
      ];
    } else target[name] = value;
  }
  if (timing !== undefined) Object.assign(target, timing);
  const minutes = target.reminderMinutesBeforeStart;
  if (minutes !== undefined && (!Number.isInteger(minutes) || (minutes as number) < 0))
    return badRequest('reminderMinutesBeforeStart must be a whole number of minutes, not negative.');
  // Graph makes the Teams meeting itself when an event asks for one.
  if (target.isOnlineMeeting === true && target.onlineMeeting === undefined) {
    target.onlineMeetingProvider ??= 'teamsForBusiness';
    target.onlineMeeting = {
      joinUrl: `https://teams.microsoft.com/l/meetup-join/${randomBytes(12).toString('hex')}`,
    };
  }
  return undefined;
}

type GraphAttendee = { type?: string; emailAddress?: { address?: string; name?: string }; status?: unknown };
const attendeeTypes = ['required', 'optional', 'resource'];

/** Graph's refusal of an attendee collection: every entry an object with an address and a known type. */
function attendeesProblem(value: unknown): Reply | undefined {
  if (!Array.isArray(value)) return badRequest('attendees must be a collection.');
  for (const attendee of value as GraphAttendee[]) {
    if (typeof attendee !== 'object' || attendee === null || !attendee.emailAddress?.address?.includes('@'))
      return graphError(400, 'ErrorInvalidRecipients', "At least one recipient isn't valid.");
    if (attendee.type !== undefined && !attendeeTypes.includes(attendee.type))
      return graphError(
        400,
        'RequestBodyRead',
        `Cannot convert the literal '${attendee.type}' to attendeeType.`,
      );
  }
  return undefined;
}

/**
 * The collection written, with the answers of attendees the event already had (new ones have
 * none); a status in the body is kept, so `changeBehindTheBack` can play an attendee's answer.
 */
function withAnswers(written: GraphAttendee[], current: StoredItem | undefined): GraphAttendee[] {
  const before = ((current && { ...current.seed, ...current.overrides }.attendees) ?? []) as GraphAttendee[];
  const key = (attendee: GraphAttendee) => attendee.emailAddress?.address?.toLowerCase();
  return written.map((attendee) => ({
    type: attendee.type ?? 'required',
    emailAddress: attendee.emailAddress,
    status: attendee.status ??
      before.find((known) => key(known) === key(attendee))?.status ?? {
        response: 'none',
        time: '0001-01-01T00:00:00Z',
      },
  }));
}

interface Placed {
  start: string;
  end: string;
  zone: string;
  originalStartTimeZone: string;
  isAllDay: boolean;
}

/** New start/end from the body (either may be kept from `current`), checked as Graph does. */
function timingOf(body: GraphBody, current: StoredItem | undefined): Placed | Reply | undefined {
  if (body.start === undefined && body.end === undefined && body.isAllDay === undefined) return undefined;
  const start = body.start === undefined ? currentTime(current, 'start') : readTime(body.start);
  const end = body.end === undefined ? currentTime(current, 'end') : readTime(body.end);
  if (start === undefined || end === undefined) return badRequest('An event needs a start and an end.');
  if ('status' in start) return start;
  if ('status' in end) return end;
  const allDay = typeof body.isAllDay === 'boolean' ? body.isAllDay : (current?.allDay ?? false);
  const endThere = end.time.withTimeZone(start.time.timeZoneId);
  if (Temporal.ZonedDateTime.compare(endThere, start.time) < 0)
    return badRequest('The end of an event cannot be before its start.');
  if (allDay) {
    const midnight = (time: Temporal.ZonedDateTime) =>
      time.toPlainTime().equals(new Temporal.PlainTime()) && time.timeZoneId === start.time.timeZoneId;
    if (!midnight(start.time) || !midnight(end.time))
      return badRequest('The start and end of an all-day event must be midnight in one time zone.');
  }
  const local = (time: Temporal.ZonedDateTime) =>
    allDay ? time.toPlainDate().toString() : time.toPlainDateTime().toString({ smallestUnit: 'second' });
  return {
    start: local(start.time),
    end: local(endThere),
    zone: start.time.timeZoneId,
    originalStartTimeZone: start.name,
    isAllDay: allDay,
  };
}

type Time = { time: Temporal.ZonedDateTime; name: string };

/** A `dateTimeTimeZone`: a local date-time in a Windows or IANA zone. */
function readTime(value: unknown): Time | Reply {
  const { dateTime, timeZone } = (value ?? {}) as { dateTime?: unknown; timeZone?: unknown };
  const name = typeof timeZone === 'string' ? timeZone : '';
  const zone = resolveTzid(name);
  if (zone === undefined)
    return graphError(
      400,
      'TimeZoneNotSupportedException',
      `A valid TimeZone value must be specified. The following TimeZone value is not supported: '${name}'.`,
    );
  try {
    return { time: Temporal.PlainDateTime.from(String(dateTime)).toZonedDateTime(zone), name };
  } catch {
    return badRequest(
      `Cannot convert the literal '${String(dateTime)}' to the expected type 'Edm.DateTime'.`,
    );
  }
}

function currentTime(current: StoredItem | undefined, which: 'start' | 'end'): Time | undefined {
  return current === undefined ? undefined : { time: current[which], name: current.zoneName };
}

/**
 * Extended property ids (`String {guid} Name name`): the type and GUID compare without case,
 * the name with it (as Graph's filters do).
 */
export function sameProperty(a: string, b: string): boolean {
  const parts = (id: string) => /^(\w+)\s+\{([0-9a-f-]+)\}\s+Name\s+(.+)$/i.exec(id.trim());
  const [x, y] = [parts(a), parts(b)];
  if (x === null || y === null) return a === b;
  return (
    x[1]!.toLowerCase() === y[1]!.toLowerCase() &&
    x[2]!.toLowerCase() === y[2]!.toLowerCase() &&
    x[3] === y[3]
  );
}
