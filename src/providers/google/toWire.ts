/**
 * Port write fields → Calendar API v3 event members. Timed events are sent as local date-times
 * with their IANA zone (Google accepts a date-time without offset when `timeZone` names one);
 * all-day events as dates, the end exclusive as in iCalendar. A patch clears the other time
 * form explicitly, so an event can change between timed and all-day.
 */

import type { EventFields, FollowingSeries, NewEvent, WriteAlert } from '../../domain/eventChanges.ts';
import type { EventTiming } from '../../domain/eventTiming.ts';
import { rruleOf } from '../../domain/recurrenceRule.ts';
import { ruleFollowing } from '../../domain/seriesSplit.ts';
import { googleAttendees } from './guests.ts';
import type { GoogleAttendee, GoogleEvent, GoogleReminder } from './wire.ts';

/** A start or end in a patch: null clears a member. */
export interface GoogleTimeChange {
  date?: string | null;
  dateTime?: string | null;
  timeZone?: string | null;
}

/** The members of an events.insert or events.patch body the adapter sends. */
export interface GoogleEventChanges {
  id?: string;
  summary?: string;
  description?: string;
  location?: string;
  start?: GoogleTimeChange;
  end?: GoogleTimeChange;
  transparency?: 'opaque' | 'transparent';
  visibility?: 'public' | 'private';
  attendees?: GoogleAttendee[];
  attendeesOmitted?: boolean;
  /** RRULE lines of a series. */
  recurrence?: string[];
  reminders?: { useDefault: boolean; overrides: GoogleReminder[] };
  /** A new Meet conference, made by Google (with conferenceDataVersion=1). */
  conferenceData?: { createRequest: { requestId: string; conferenceSolutionKey: { type: 'hangoutsMeet' } } };
}

/** The event's own reminders instead of the calendar's defaults: popup (display) or email. */
const googleReminders = (alerts: readonly WriteAlert[]) => ({
  useDefault: false,
  overrides: alerts.map((alert) => ({
    method: alert.action === 'email' ? 'email' : 'popup',
    minutes: alert.minutesBefore,
  })),
});

/** An events.patch body: only the fields given; a removed description or location is empty. */
export function googleChanges(fields: EventFields): GoogleEventChanges {
  const changes: GoogleEventChanges = {};
  if (fields.title !== undefined) changes.summary = fields.title;
  if (fields.description !== undefined) changes.description = fields.description ?? '';
  if (fields.location !== undefined) changes.location = fields.location ?? '';
  if (fields.timing !== undefined) Object.assign(changes, googleTimes(fields.timing, true));
  if (fields.freeBusyStatus !== undefined)
    changes.transparency = fields.freeBusyStatus === 'free' ? 'transparent' : 'opaque';
  if (fields.privacy !== undefined) changes.visibility = fields.privacy;
  if (fields.alerts !== undefined) changes.reminders = googleReminders(fields.alerts);
  if (fields.recurrence !== undefined && fields.timing !== undefined)
    changes.recurrence = [`RRULE:${rruleOf(fields.recurrence, fields.timing)}`];
  return changes;
}

/** An events.insert body whose id is the service's uid; nothing empty is sent. */
export function googleNewEvent(event: NewEvent, id: string): GoogleEventChanges {
  return {
    id,
    ...googleChanges({
      ...event,
      description: event.description || undefined,
      location: event.location || undefined,
    }),
    ...googleTimes(event.timing, false),
    // The request id is the event's own, so a repeated insert asks for the same conference.
    ...(event.conference === true
      ? {
          conferenceData: {
            createRequest: { requestId: id, conferenceSolutionKey: { type: 'hangoutsMeet' } },
          },
        }
      : {}),
  };
}

function googleTimes(
  timing: EventTiming,
  clearOther: boolean,
): { start: GoogleTimeChange; end: GoogleTimeChange } {
  if (timing.allDay) {
    const cleared = clearOther ? { dateTime: null, timeZone: null } : {};
    return { start: { date: timing.startDate, ...cleared }, end: { date: timing.endDate, ...cleared } };
  }
  const cleared = clearOther ? { date: null } : {};
  const { timeZone } = timing;
  return {
    start: { dateTime: timing.start, timeZone, ...cleared },
    end: { dateTime: timing.end, timeZone, ...cleared },
  };
}

/** A master's first start as local wall-clock time in its zone, or its date. */
function localStart(master: GoogleEvent, zone: string): string | undefined {
  if (master.start?.date !== undefined) return master.start.date;
  if (master.start?.dateTime === undefined) return undefined;
  return Temporal.Instant.from(master.start.dateTime)
    .toZonedDateTimeISO(master.start.timeZone ?? zone)
    .toPlainDateTime()
    .toString();
}

/**
 * An events.insert body for a series going on from one occurrence of `master`, as `id`: its
 * fields and guests (answers reset: a new series is a new invitation), the rule going on from
 * there without the old series' EXDATE/RDATE lines, and the fields changed.
 */
export function googleFollowing(
  master: GoogleEvent,
  following: FollowingSeries,
  id: string,
): GoogleEventChanges {
  const { fields } = following;
  const zone = fields.timing.allDay ? 'Etc/UTC' : fields.timing.timeZone;
  const first = localStart(master, zone) ?? following.from;
  const attendees = (master.attendees ?? []).map(
    ({ email, displayName, optional, resource }): GoogleAttendee => ({
      ...(email === undefined ? {} : { email }),
      ...(displayName === undefined ? {} : { displayName }),
      ...(optional === undefined ? {} : { optional }),
      ...(resource === undefined ? {} : { resource }),
    }),
  );
  const kept: GoogleEventChanges = {
    id,
    ...(master.summary === undefined ? {} : { summary: master.summary }),
    ...(master.description === undefined ? {} : { description: master.description }),
    ...(master.location === undefined ? {} : { location: master.location }),
    ...(master.transparency === undefined ? {} : { transparency: master.transparency }),
    ...(master.visibility === 'public' || master.visibility === 'private'
      ? { visibility: master.visibility }
      : {}),
    ...(master.reminders === undefined
      ? {}
      : {
          reminders: {
            useDefault: master.reminders.useDefault ?? true,
            overrides: master.reminders.overrides ?? [],
          },
        }),
    recurrence: (master.recurrence ?? [])
      .filter((line) => /^RRULE:/i.test(line))
      .map((line) => `RRULE:${ruleFollowing(line.slice(6), first, following.from)}`),
  };
  const guests = fields.guests === undefined ? attendees : googleAttendees(attendees, fields.guests);
  return {
    ...kept,
    ...googleChanges(fields),
    ...googleTimes(fields.timing, false),
    ...(guests.length === 0 ? {} : { attendees: guests }),
  };
}
