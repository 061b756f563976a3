/**
 * The fake's event endpoints below one calendar: `calendarView`, `events` (list, `$filter` on
 * an extended property, create), `events/{id}` (read, PATCH, DELETE), `events/{id}/instances`
 * and the attendee's answers. Writes to a calendar the user may not edit are 403, and a write
 * whose `If-Match` names another changeKey is 412, as at Graph.
 */
import { graphError, json, type Reply } from './http.ts';
import {
  type FakeGraphCalendarSeed,
  inWindow,
  renderEvent,
  type StoredItem,
  seriesInstances,
  storedEvent,
} from './store.ts';
import {
  createEvent,
  deleteItem,
  findItem,
  type GraphAnswer,
  type GraphBody,
  matches,
  respondTo,
  sameProperty,
  updateItem,
} from './writes.ts';

export interface EventRequest {
  method: string;
  url: URL;
  /** The path below the calendar, e.g. `['events', id, 'instances']`. */
  below: string[];
  /** The parsed JSON body of a write (undefined when there was none or it was not JSON). */
  body: unknown;
  ifMatch: string | undefined;
  email: string;
  owner: { name?: string; address: string };
  /** Every calendar of the mailbox (transaction ids are the mailbox's). */
  mailbox: FakeGraphCalendarSeed[];
  zone: { zone: string; name: string };
  now: Temporal.Instant;
  page: (url: URL, items: unknown[], headers?: Record<string, string>) => Reply;
}

const answers = new Set<string>(['accept', 'decline', 'tentativelyAccept']);

export function calendarEvents(calendar: FakeGraphCalendarSeed, request: EventRequest): Reply {
  const { method, url, below } = request;
  const [sub, eventId, tail, ...rest] = below;
  const headers = { 'preference-applied': `outlook.timezone="${request.zone.name}"` };
  const render = (item: StoredItem) => renderEvent(item, request.owner, request.zone);
  const items = calendar.events?.map(storedEvent) ?? [];
  if (rest.length > 0) return badSegment(url);

  if (sub === 'calendarView' && eventId === undefined) {
    if (method !== 'GET') return notAllowed();
    const window = timeWindow(url);
    if ('status' in window) return window;
    return request.page(url, viewItems(calendar, window.from, window.to).map(render), headers);
  }
  if (sub !== 'events') return badSegment(url);

  if (eventId === undefined) {
    if (method === 'GET') {
      const kept = filtered(items, url.searchParams.get('$filter'));
      if ('status' in kept) return kept;
      return request.page(url, byStart(kept).map(render), headers);
    }
    if (method !== 'POST') return notAllowed();
    const refused = writeRefusal(calendar, request);
    if (refused) return refused;
    const created = createEvent(calendar, request.mailbox, request.body as GraphBody);
    return 'status' in created ? created : { ...json(render(created), headers), status: 201 };
  }

  const item = findItem(calendar, eventId);
  if (item === undefined) return notFound();
  if (tail === undefined) {
    if (method === 'GET') return json(render(item), headers);
    if (method !== 'PATCH' && method !== 'DELETE') return notAllowed();
    const refused = writeRefusal(calendar, request, item);
    if (refused) return refused;
    if (method === 'DELETE') {
      deleteItem(calendar, item);
      return { status: 204 };
    }
    const invalid = updateItem(item, request.body as GraphBody);
    return invalid ?? json(render(findItem(calendar, eventId)!), headers);
  }
  if (tail === 'instances') {
    if (method !== 'GET') return notAllowed();
    const window = timeWindow(url);
    if ('status' in window) return window;
    const inside = seriesInstances(item).filter((instance) => inWindow(instance, window.from, window.to));
    return request.page(url, byStart(inside).map(render), headers);
  }
  if (answers.has(tail)) {
    if (method !== 'POST') return notAllowed();
    const refused = writeRefusal(calendar, request, item);
    if (refused) return refused;
    const invalid = respondTo(item, tail as GraphAnswer, request.email, request.now);
    return invalid ?? { status: 202 };
  }
  return badSegment(url);
}

/** What calendarView shows in a window: single events and series instances, never masters, by start. */
export function viewItems(
  calendar: FakeGraphCalendarSeed,
  from: Temporal.Instant,
  to: Temporal.Instant,
): StoredItem[] {
  const items = (calendar.events ?? [])
    .map(storedEvent)
    .flatMap((item) => (item.type === 'seriesMaster' ? seriesInstances(item) : [item]));
  return byStart(items.filter((item) => inWindow(item, from, to)));
}

/** Why a write is refused before anything is applied: rights, body, version. */
function writeRefusal(
  calendar: FakeGraphCalendarSeed,
  request: EventRequest,
  item?: StoredItem,
): Reply | undefined {
  if (calendar.canEdit === false)
    return graphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
  const body = request.body;
  if (request.method !== 'DELETE' && (typeof body !== 'object' || body === null || Array.isArray(body)))
    return graphError(400, 'BadRequest', 'Empty Payload. JSON content expected.');
  if (item !== undefined && !matches(request.ifMatch, item))
    return graphError(
      412,
      'ErrorIrresolvableConflict',
      'The send or update operation could not be performed because the change key passed in the request does not match the current change key for the item.',
    );
  return undefined;
}

const anyExtendedProperty =
  /^singleValueExtendedProperties\/any\(\s*(\w+)\s*:\s*\1\/id eq '((?:[^']|'')*)' and \1\/value eq '((?:[^']|'')*)'\s*\)$/i;

/** Events and series masters (not instances), kept by the one `$filter` form the fake knows. */
function filtered(items: StoredItem[], filter: string | null): StoredItem[] | Reply {
  if (filter === null) return items;
  const match = anyExtendedProperty.exec(filter.trim());
  if (match === null)
    return graphError(
      400,
      'ErrorInvalidUrlQueryFilter',
      'The query filter contains one or more invalid nodes.',
    );
  const [id, value] = [match[2]!, match[3]!].map((literal) => literal.replaceAll("''", "'")) as [
    string,
    string,
  ];
  // Graph compares the value without case.
  return items.filter((item) =>
    (
      (item.seed.singleValueExtendedProperties as Array<{ id: string; value: string }> | undefined) ?? []
    ).some(
      (property) => sameProperty(property.id, id) && property.value.toLowerCase() === value.toLowerCase(),
    ),
  );
}

/** startDateTime/endDateTime: with an offset, or else read as UTC. */
export function timeWindow(url: URL): { from: Temporal.Instant; to: Temporal.Instant } | Reply {
  const read = (name: string): Temporal.Instant | undefined => {
    const value = url.searchParams.get(name);
    if (value === null) return undefined;
    try {
      return /(Z|[+-]\d{2}:\d{2})$/i.test(value)
        ? Temporal.Instant.from(value)
        : Temporal.PlainDateTime.from(value).toZonedDateTime('UTC').toInstant();
    } catch {
      return undefined;
    }
  };
  const from = read('startDateTime');
  const to = read('endDateTime');
  if (from !== undefined && to !== undefined) return { from, to };
  return graphError(
    400,
    'ErrorInvalidParameter',
    'This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.',
  );
}

const byStart = (items: StoredItem[]) =>
  [...items].sort(
    (a, b) => Temporal.Instant.compare(a.start.toInstant(), b.start.toInstant()) || a.id.localeCompare(b.id),
  );

export const notFound = () =>
  graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
export const badSegment = (url: URL) =>
  graphError(
    400,
    'BadRequest',
    `Resource not found for the segment '${url.pathname.slice('/v1.0'.length)}'.`,
  );
export const notAllowed = () => graphError(405, 'Request_BadRequest', 'Method not allowed.');
