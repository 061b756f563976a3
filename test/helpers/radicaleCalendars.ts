/**
 * Calendars on a real Radicale, filled with the project's iCalendar fixtures (test/fixtures/ical)
 * and with events written in a test, then connected to the application as a CalDAV account the
 * way a person connects one.
 */
import { readFile } from 'node:fs/promises';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import type { AppContext } from '../../src/context.ts';
import { mkcalendar, putIcs, type RadicaleServer } from './radicale.ts';

/** A fixture's text (test/fixtures/ical, see its README), exactly as stored. */
export const fixtureIcs = (name: string): Promise<string> =>
  readFile(new URL(`../fixtures/ical/${name}`, import.meta.url), 'utf8');

/** A VCALENDAR around VEVENTs given as lists of content lines (CRLF, as RFC 5545 wants). */
export const vcalendar = (...events: string[][]): string =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Calendar Access Service tests//EN',
    ...events.flatMap((lines) => ['BEGIN:VEVENT', 'DTSTAMP:20260101T000000Z', ...lines, 'END:VEVENT']),
    'END:VCALENDAR',
    '',
  ].join('\r\n');

/** The calendar-timezone value of RFC 4791 §5.2.2: a VCALENDAR holding one VTIMEZONE. */
const calendarTimezone = (tzid: string): string =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'BEGIN:VTIMEZONE',
    `TZID:${tzid}`,
    'END:VTIMEZONE',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

export interface RadicaleCalendar {
  /** The collection's path segment under the user's home. */
  slug: string;
  displayName: string;
  /** Declared as calendar-timezone; absent = a calendar without a known zone. */
  timeZone?: string;
  /** iCalendar texts; each is split into one resource per UID. */
  contents: string[];
}

/** MKCALENDAR and PUT each calendar into the first user's home. */
export async function fillRadicale(radicale: RadicaleServer, calendars: RadicaleCalendar[]): Promise<void> {
  const auth = { username: radicale.username, password: radicale.password };
  for (const calendar of calendars) {
    const url = new URL(`${radicale.username}/${calendar.slug}/`, radicale.url).href;
    await mkcalendar(url, auth, {
      displayName: calendar.displayName,
      ...(calendar.timeZone === undefined ? {} : { timeZone: calendarTimezone(calendar.timeZone) }),
    });
    for (const ics of calendar.contents) await putIcs(url, auth, ics);
  }
}

/** Connects the first Radicale user as a CalDAV account of `owner`; calendar name → calendar id. */
export async function connectRadicale(
  ctx: AppContext,
  owner: { userId: string; workspaceId: string },
  radicale: RadicaleServer,
): Promise<Map<string, string>> {
  const { calendars } = await addConnection(
    ctx,
    owner,
    { kind: 'caldav', serverUrl: radicale.url, username: radicale.username, password: radicale.password },
    'Radicale',
  );
  return new Map(calendars.map((calendar) => [calendar.name, calendar.id]));
}
