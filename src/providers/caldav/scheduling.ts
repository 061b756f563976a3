/**
 * Whether a CalDAV server schedules (RFC 6638): then it delivers invitations, updates and
 * cancellations itself when the organizer's copy of an event changes. A server says so with
 * `calendar-auto-schedule` in the DAV header of OPTIONS on the calendar (§2), or with a
 * schedule-outbox-URL on the principal (§2.1). Without it nobody is told anything.
 */
import type { GuestScheduling } from '../../domain/guests.ts';
import { type DavSession, davRequest } from './client.ts';

/** OPTIONS on the calendar: its DAV header names `calendar-auto-schedule`. */
export async function autoSchedules(session: DavSession, calendarUrl: URL): Promise<boolean> {
  const answer = await davRequest(session, { method: 'OPTIONS', url: calendarUrl, what: 'the calendar' });
  return (answer.headers.get('dav') ?? '')
    .split(',')
    .some((token) => token.trim().toLowerCase() === 'calendar-auto-schedule');
}

/**
 * A scheduling server keeps a change from the guests when every ATTENDEE says
 * SCHEDULE-AGENT=CLIENT (§7.1), but cancels for anyone on the organizer's deletion.
 */
export const caldavScheduling = (schedules: boolean, selfAddresses: readonly string[]): GuestScheduling => ({
  delivers: schedules,
  quiet: { update: true, delete: !schedules },
  selfAddresses,
});
