/**
 * The calendars in a calendar home (one PROPFIND, Depth 1), as ProviderCalendars: event
 * collections only, with the name, colour, zone and rights the server declares.
 */

import type { CalendarAccess, ProviderCalendar } from '../../domain/providerFacts.ts';
import { resolveTzid } from '../../domain/time/zones.ts';
import { type DavSession, hrefUrl, propfind } from './client.ts';
import { child, type DavResponse, hrefIn, ns, type PropName, propKey, type XmlElement } from './wire.ts';

const p = {
  resourcetype: [ns.dav, 'resourcetype'],
  displayname: [ns.dav, 'displayname'],
  color: [ns.apple, 'calendar-color'],
  timezone: [ns.caldav, 'calendar-timezone'],
  timezoneId: [ns.caldav, 'calendar-timezone-id'],
  components: [ns.caldav, 'supported-calendar-component-set'],
  privileges: [ns.dav, 'current-user-privilege-set'],
  principal: [ns.dav, 'current-user-principal'],
  owner: [ns.dav, 'owner'],
  defaultCalendar: [ns.caldav, 'schedule-default-calendar-URL'],
} as const satisfies Record<string, PropName>;

/** Collections are addressed with a trailing slash, so member hrefs resolve relative to them. */
export const collectionUrl = (url: URL): URL => {
  const copy = new URL(url);
  if (!copy.pathname.endsWith('/')) copy.pathname += '/';
  return copy;
};

const prop = (response: DavResponse, name: PropName) => response.props.get(propKey(name));

/** The TZID of the VTIMEZONE in calendar-timezone (RFC 4791 §5.2.2), as an IANA zone. */
export function zoneOfVtimezone(text: string): string | undefined {
  const tzid = /^TZID(?:;[^:\r\n]*)?:(.*)$/im.exec(text.replaceAll(/\r?\n[ \t]/g, ''));
  return tzid ? resolveTzid(tzid[1]!) : undefined;
}

/** `#RRGGBB` or Apple's `#RRGGBBAA` → `#rrggbb`; anything else is dropped. */
function colorOf(element: XmlElement | undefined): string | undefined {
  const match = element ? /^#([0-9a-f]{6})(?:[0-9a-f]{2})?$/i.exec(element.text.trim()) : null;
  return match ? `#${match[1]!.toLowerCase()}` : undefined;
}

function nameOf(response: DavResponse, url: URL): string {
  const displayname = prop(response, p.displayname)?.text.trim();
  if (displayname) return displayname;
  const segment = url.pathname.split('/').filter(Boolean).at(-1) ?? url.host;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function holdsEvents(response: DavResponse): boolean {
  const set = prop(response, p.components);
  // Without the property a calendar may hold any component (RFC 4791 §5.2.3).
  return set === undefined || set.children.some((comp) => comp.attributes.name?.toUpperCase() === 'VEVENT');
}

const writePrivileges = new Set(['all', 'write', 'write-content']);

/** Writable calendars owned by the connected principal are 'owner'; a privilege set without write is 'reader'. */
function accessOf(response: DavResponse, base: URL): CalendarAccess {
  const privileges = prop(response, p.privileges)?.children ?? [];
  const writable = privileges.some((privilege) =>
    privilege.children.some((right) => right.ns === ns.dav && writePrivileges.has(right.name)),
  );
  if (!writable) return 'reader';
  const owner = hrefIn(prop(response, p.owner));
  const principal = hrefIn(prop(response, p.principal));
  const same =
    owner !== undefined &&
    principal !== undefined &&
    URL.parse(owner, base)?.href === URL.parse(principal, base)?.href;
  return same ? 'owner' : 'writer';
}

function zoneOf(response: DavResponse): string | undefined {
  const id = prop(response, p.timezoneId)?.text.trim();
  const resolved = id ? resolveTzid(id) : undefined;
  if (resolved !== undefined) return resolved;
  const vtimezone = prop(response, p.timezone)?.text;
  return vtimezone ? zoneOfVtimezone(vtimezone) : undefined;
}

export async function listCalendarsAt(session: DavSession, homeUrl: string): Promise<ProviderCalendar[]> {
  const answer = await propfind(session, new URL(homeUrl), '1', Object.values(p), 'the calendar home');
  let defaultUrl: string | undefined;
  const calendars: ProviderCalendar[] = [];
  for (const response of answer.responses) {
    const defaultHref = hrefIn(prop(response, p.defaultCalendar));
    const named = defaultHref === undefined ? null : URL.parse(defaultHref, answer.url);
    if (named !== null) defaultUrl = collectionUrl(named).href;
    const isCalendar = child(prop(response, p.resourcetype), ns.caldav, 'calendar') !== undefined;
    if (!isCalendar || (response.status ?? 200) >= 300 || !holdsEvents(response)) continue;
    const url = collectionUrl(hrefUrl(session, response.href, answer.url, 'a calendar'));
    const timeZone = zoneOf(response);
    const color = colorOf(prop(response, p.color));
    calendars.push({
      providerCalendarId: url.href,
      name: nameOf(response, url),
      ...(timeZone && { timeZone }),
      ...(color && { color }),
      primary: false,
      access: accessOf(response, answer.url),
    });
  }
  const primary = calendars.find((calendar) => calendar.providerCalendarId === defaultUrl) ?? calendars[0];
  if (primary) primary.primary = true;
  return calendars;
}
