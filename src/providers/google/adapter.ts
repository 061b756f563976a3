/** The Google Calendar adapter behind the provider port. */

import type { EventsResult, ProviderOccurrence } from '../../domain/providerFacts.ts';
import { nearWindow } from '../nearWindow.ts';
import { busyOnly, type CalendarProvider } from '../port.ts';
import { createGoogleClient, type EventPage, type GoogleClient } from './client.ts';
import { createGoogleEventWrites } from './eventWrites.ts';
import { googleFreeBusy } from './freeBusy.ts';
import { mapCalendar, mapEvent, mappingContext } from './mapping.ts';
import type { GoogleAuthDeps } from './oauth.ts';
import { createGooglePush } from './push.ts';
import { googleRooms } from './rooms.ts';
import { createGoogleSessions, type GoogleAccount } from './session.ts';
import { createGoogleSync } from './sync.ts';
import type { GoogleEvent } from './wire.ts';
import { createGoogleWriter } from './writer.ts';

export type GoogleProviderDeps = GoogleAuthDeps;

/** All-day events sit in the calendar's zone; a day either side catches them in any zone. */
const allDayMargin = { hours: 24 };

export function createGoogleProvider(deps: GoogleProviderDeps): CalendarProvider<'google'> {
  const sessions = createGoogleSessions(deps);
  const clientFor = (account: GoogleAccount): GoogleClient =>
    createGoogleClient(sessions.open(account), deps.config.apiBaseUrl, deps.clock);

  const writer = createGoogleWriter((account) => {
    const session = sessions.open(account);
    return {
      client: createGoogleClient(session, deps.config.apiBaseUrl, deps.clock),
      writes: createGoogleEventWrites(session, deps.config.apiBaseUrl, deps.clock),
    };
  });

  return {
    kind: 'google',
    writer,
    sync: createGoogleSync(clientFor),
    push: createGooglePush(sessions.open, deps.config.apiBaseUrl, deps.clock),

    async listCalendars(account) {
      const entries = await clientFor(account).calendarList();
      return entries.filter((entry) => entry.deleted !== true).map(mapCalendar);
    },

    async listEvents(account, calendar, window) {
      const page = await clientFor(account).events(calendar.providerCalendarId, {
        timeMin: window.start.subtract(allDayMargin),
        timeMax: window.end.add(allDayMargin),
      });
      const result: EventsResult = { occurrences: [], skipped: [] };
      for (const event of page.items) {
        const mapped = mapEvent(event, mappingContext(calendar, page));
        if ('skipped' in mapped) result.skipped.push(mapped.skipped);
        else if (nearWindow(mapped.occurrence, window)) result.occurrences.push(mapped.occurrence);
      }
      return result;
    },

    async listRooms(account) {
      return googleRooms(await clientFor(account).calendarList());
    },

    freeBusy(account, emails, window) {
      const { apiBaseUrl } = deps.config;
      return googleFreeBusy(sessions.open(account), { apiBaseUrl, clock: deps.clock, emails, window }).then(
        busyOnly,
      );
    },

    async getEvent(account, calendar, providerEventId, recurrenceId) {
      const client = clientFor(account);
      const calendarId = calendar.providerCalendarId;
      let page: EventPage | undefined;
      let master: GoogleEvent | undefined;
      if (recurrenceId === undefined) {
        const event = await client.event(calendarId, providerEventId);
        if (event === undefined) return undefined;
        // A series master: the port wants its first occurrence, which Google lists first.
        if (event.recurrence) master = event;
        page = master
          ? await client.instances(calendarId, providerEventId, { maxResults: 1 })
          : { items: [event], defaultReminders: await defaultRemindersFor(client, calendarId, event) };
      } else {
        page = await client.instances(calendarId, providerEventId, { originalStart: recurrenceId });
      }
      const event = page?.items[0];
      if (page === undefined || event === undefined || event.status === 'cancelled') return undefined;
      const mapped = mapEvent(event, mappingContext(calendar, page));
      if (!('occurrence' in mapped)) return undefined;
      // A write to the whole series is checked against the master's etag, not the instance's.
      return master === undefined ? mapped.occurrence : withVersion(mapped.occurrence, master.etag);
    },
  };
}

function withVersion(occurrence: ProviderOccurrence, version: string | undefined): ProviderOccurrence {
  const { version: _, ...facts } = occurrence.facts;
  return { ...occurrence, facts: version === undefined ? facts : { ...facts, version } };
}

/** events.get does not carry the calendar's default reminders; fetch them only when used. */
async function defaultRemindersFor(client: GoogleClient, calendarId: string, event: GoogleEvent) {
  if (!event.reminders?.useDefault || event.start?.dateTime === undefined) return [];
  return (await client.calendarListEntry(calendarId)).defaultReminders ?? [];
}
