/**
 * Events of one CalDAV calendar: a calendar-query REPORT for the window (Radicale ignores
 * `expand`, so the server returns whole objects and the expansion pool expands them, off the
 * request thread and within one budget for the calendar), and a GET for one object.
 *
 * providerEventId is `<object href relative to the calendar>#<UID>`: the href is the resource a
 * later write must address (it need not be derived from the UID), the UID names the event in it.
 */
import { unplacedSlackMs } from '../../domain/ical/window.ts';
import type { EventsResult, ProviderOccurrence, SkippedItem } from '../../domain/providerFacts.ts';
import type { TimeWindow } from '../../domain/window.ts';
import type { ExpansionPool } from '../expansionPool.ts';
import { type DavSession, davRequest, multistatus, sameServer, unexpectedAnswer } from './client.ts';
import { calendarQueryBody, ns, propKey } from './wire.ts';

const calendarData = propKey([ns.caldav, 'calendar-data']);
const getetag = propKey([ns.dav, 'getetag']);

/** The object's path relative to the calendar (an absolute path when it lives elsewhere on the server). */
function relativeHref(calendarUrl: URL, object: URL): string {
  const path = object.pathname;
  return path.startsWith(calendarUrl.pathname) ? path.slice(calendarUrl.pathname.length) : path;
}

const eventIdOf = (calendarUrl: URL, object: URL, uid: string): string =>
  `${relativeHref(calendarUrl, object)}#${uid}`;

/** The object URL and UID of an id made by eventIdOf; undefined for anything else. */
export function parseEventId(
  calendarUrl: URL,
  providerEventId: string,
): { url: URL; uid: string } | undefined {
  const hash = providerEventId.indexOf('#');
  if (hash <= 0) return undefined;
  const url = URL.parse(providerEventId.slice(0, hash), calendarUrl);
  // Never let a stored id point the account's credentials at another server.
  if (url === null || url.origin !== calendarUrl.origin) return undefined;
  return { url, uid: providerEventId.slice(hash + 1) };
}

export async function listEventsIn(
  session: DavSession,
  calendarUrl: URL,
  window: TimeWindow,
  selfAddresses: string[],
  pool: ExpansionPool,
): Promise<EventsResult> {
  // Floating and all-day events are placed later, in a zone not known yet: ask as wide as expandIcs keeps them.
  const slack = { milliseconds: unplacedSlackMs };
  const body = calendarQueryBody(window.start.subtract(slack), window.end.add(slack));
  const answer = await davRequest(session, {
    method: 'REPORT',
    url: calendarUrl,
    depth: '1',
    body,
    what: 'the calendar',
  });
  const occurrences: ProviderOccurrence[] = [];
  const skipped: SkippedItem[] = [];
  const objects: { idOf: (uid: string | undefined) => string; ics: string; version?: string }[] = [];
  for (const response of multistatus(session, answer, 'the calendar')) {
    const object = URL.parse(response.href, answer.url);
    if (object === null || !sameServer(object, answer.url)) {
      // Ids address objects on the calendar's server; one named elsewhere is never followed.
      skipped.push({ providerEventId: response.href, reason: 'the server placed it on another server' });
      continue;
    }
    if (object.pathname === calendarUrl.pathname) continue;
    const ics = response.props.get(calendarData)?.text;
    const idOf = (uid: string | undefined) =>
      uid === undefined ? relativeHref(calendarUrl, object) : eventIdOf(calendarUrl, object, uid);
    if (!ics) {
      skipped.push({ providerEventId: idOf(undefined), reason: 'the server sent no calendar data for it' });
      continue;
    }
    const version = response.props.get(getetag)?.text.trim() || undefined;
    objects.push({ idOf, ics, ...(version !== undefined && { version }) });
  }
  const expanded = await pool.expand(
    session.accountKey,
    objects.map(({ ics, version }) => ({ ics, options: { ...(version !== undefined && { version }) } })),
    { window, selfAddresses },
  );
  for (const [index, result] of expanded.results.entries()) {
    const { idOf } = objects[index]!;
    if ('error' in result) {
      skipped.push({
        providerEventId: idOf(undefined),
        reason: `unreadable iCalendar object: ${result.error}`,
      });
      continue;
    }
    for (const occurrence of result.occurrences) {
      occurrences.push({ ...occurrence, providerEventId: idOf(occurrence.providerEventId) });
    }
    for (const item of result.skipped) {
      skipped.push({ ...item, providerEventId: idOf(item.providerEventId) });
    }
  }
  if (expanded.over !== undefined) {
    const left = objects.length - expanded.results.length;
    skipped.push({ reason: `${expanded.over} (${left} object${left === 1 ? '' : 's'} not read)` });
  }
  return { occurrences, skipped };
}

export async function getEventIn(
  session: DavSession,
  calendarUrl: URL,
  providerEventId: string,
  recurrenceId: string | undefined,
  selfAddresses: string[],
  pool: ExpansionPool,
): Promise<ProviderOccurrence | undefined> {
  const target = parseEventId(calendarUrl, providerEventId);
  if (target === undefined) return undefined;
  const answer = await davRequest(session, {
    method: 'GET',
    url: target.url,
    accept: 'text/calendar',
    what: 'the event',
  });
  if ([403, 404, 410].includes(answer.status)) return undefined;
  if (answer.status !== 200) throw unexpectedAnswer(session, answer, 'the event');
  const version = answer.headers.get('etag') ?? undefined;
  const occurrence = await pool.find(session.accountKey, answer.body, target.uid, recurrenceId, {
    ...(version !== undefined && { version }),
    selfAddresses,
  });
  return occurrence && { ...occurrence, providerEventId };
}
