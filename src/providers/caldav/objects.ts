/**
 * Calendar objects as REPORT answers carry them (calendar-query, calendar-multiget), and the
 * ids of their events. Reads and sync share it (through report.ts, in the expansion pool), so
 * a synced copy holds what a live read reports.
 *
 * providerEventId is `<object href relative to the calendar>#<UID>`: the href is the resource a
 * later write must address (it need not be derived from the UID), the UID names the event in it.
 */
import type { SkippedItem } from '../../domain/providerFacts.ts';
import { sameServer } from './hrefs.ts';
import { type DavResponse, ns, propKey } from './wire.ts';

const calendarData = propKey([ns.caldav, 'calendar-data']);
export const getetag = propKey([ns.dav, 'getetag']);

/** The object's path relative to the calendar (an absolute path when it lives elsewhere on the server). */
function relativeHref(calendarUrl: URL, object: URL): string {
  const path = object.pathname;
  return path.startsWith(calendarUrl.pathname) ? path.slice(calendarUrl.pathname.length) : path;
}

/** The providerEventId of the event `uid` in `object`; the object's own name without a UID. */
export const eventIdOf = (calendarUrl: URL, object: URL, uid: string | undefined): string =>
  uid === undefined ? relativeHref(calendarUrl, object) : `${relativeHref(calendarUrl, object)}#${uid}`;

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

/** The trimmed ETag of a response, if it has one. */
export const etagOf = (response: DavResponse): string | undefined =>
  response.props.get(getetag)?.text.trim() || undefined;

export interface DavObject {
  url: URL;
  ics: string;
  version?: string;
}

/** The objects of REPORT responses; those on another server or without data are skipped. */
export function readObjects(
  calendarUrl: URL,
  base: URL,
  responses: DavResponse[],
): { objects: DavObject[]; skipped: SkippedItem[] } {
  const objects: DavObject[] = [];
  const skipped: SkippedItem[] = [];
  for (const response of responses) {
    const url = URL.parse(response.href, base);
    if (url === null || !sameServer(url, base)) {
      // Ids address objects on the calendar's server; one named elsewhere is never followed.
      skipped.push({ providerEventId: response.href, reason: 'the server placed it on another server' });
      continue;
    }
    if (url.pathname === calendarUrl.pathname) continue;
    const ics = response.props.get(calendarData)?.text;
    if (!ics) {
      skipped.push({
        providerEventId: eventIdOf(calendarUrl, url, undefined),
        reason: 'the server sent no calendar data for it',
      });
      continue;
    }
    const version = etagOf(response);
    objects.push({ url, ics, ...(version !== undefined && { version }) });
  }
  return { objects, skipped };
}
