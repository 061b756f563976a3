/**
 * Finding one event at Graph: by id (undefined once it is gone), and one instance of a series
 * by the recurrence id the adapter reports for it (its original start); and what every read
 * of a calendar shares: its path, the fields asked for, a view's range.
 */

import type { ProviderCalendar } from '../../domain/providerFacts.ts';
import type { TimeWindow } from '../../domain/window.ts';
import { isAppError } from '../../errors.ts';
import type { GraphClient, GraphQuery } from './client.ts';
import { mapEvent } from './mapping.ts';
import type { MicrosoftAccount } from './session.ts';
import type { GraphEvent } from './wire.ts';

export const eventFields = [
  'id,type,seriesMasterId,originalStart,originalStartTimeZone,subject,body,start,end,isAllDay',
  'isCancelled,isOrganizer,showAs,sensitivity,responseStatus,isReminderOn,reminderMinutesBeforeStart',
  'location,locations,onlineMeeting,onlineMeetingUrl,onlineMeetingProvider,webLink,categories',
  'attendees,organizer,changeKey',
].join(',');
export const pageSize = '100';
// Outlook keeps a moved occurrence between its neighbours, so a month either side finds it
// for daily, weekly and monthly series.
const instanceSearch = Temporal.Duration.from({ hours: 24 * 31 });

const day = Temporal.Duration.from({ hours: 24 });

/** A calendar view's range for `window`, a day wider each side: Graph places all-day events in their own zone, the core in another. */
export const viewWindow = (window: TimeWindow): GraphQuery => ({
  startDateTime: window.start.subtract(day).toString(),
  endDateTime: window.end.add(day).toString(),
});

export const calendarPath = (calendar: ProviderCalendar) =>
  `/me/calendars/${encodeURIComponent(calendar.providerCalendarId)}`;

export const eventPath = (calendar: ProviderCalendar, eventId: string) =>
  `${calendarPath(calendar)}/events/${encodeURIComponent(eventId)}`;

export async function readEvent(
  client: GraphClient,
  account: MicrosoftAccount,
  calendar: ProviderCalendar,
  eventId: string,
): Promise<GraphEvent | undefined> {
  try {
    return await client.get<GraphEvent>(account, eventPath(calendar, eventId), { $select: eventFields });
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') return undefined;
    throw error;
  }
}

/** The series' instances within a month of `around`. */
export function instancesAround(
  client: GraphClient,
  account: MicrosoftAccount,
  calendar: ProviderCalendar,
  seriesId: string,
  around: Temporal.Instant,
): Promise<GraphEvent[]> {
  return client.getAll<GraphEvent>(account, `${eventPath(calendar, seriesId)}/instances`, {
    startDateTime: around.subtract(instanceSearch).toString(),
    endDateTime: around.add(instanceSearch).toString(),
    $select: eventFields,
    $top: pageSize,
  });
}

/** The instance whose recurrence id (as mapEvent reports it) is `recurrenceId`, if it exists. */
export async function findInstance(
  client: GraphClient,
  account: MicrosoftAccount,
  calendar: ProviderCalendar,
  seriesId: string,
  recurrenceId: string,
): Promise<GraphEvent | undefined> {
  const wanted = instantOrUndefined(recurrenceId);
  if (wanted === undefined) return undefined;
  const instances = await instancesAround(client, account, calendar, seriesId, wanted);
  return instances.find((instance) => {
    const mapped = mapEvent(instance, calendar);
    return 'occurrence' in mapped && mapped.occurrence.recurrenceId === wanted.toString();
  });
}

export function instantOrUndefined(value: string): Temporal.Instant | undefined {
  try {
    return Temporal.Instant.from(value);
  } catch {
    return undefined;
  }
}
