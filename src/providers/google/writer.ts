/**
 * Writes to Google Calendar events. A create uses the service's uid as the event id, so Google
 * itself refuses a second event with it (409, even once the first is deleted). Changes go to
 * the event — for a series, its master — or, for one occurrence, to the instance Google lists
 * at that original start, always conditional on the etag the service just read (If-Match).
 */

import type { RsvpResponse, WriteTarget } from '../../domain/eventChanges.ts';
import type { EventTiming } from '../../domain/eventTiming.ts';
import type { ProviderCalendar } from '../../domain/providerFacts.ts';
import { ruleMovedInDay } from '../../domain/recurrenceRule.ts';
import { ruleEndingAt } from '../../domain/seriesSplit.ts';
import { AppError } from '../../errors.ts';
import type { EventWriter } from '../port.ts';
import type { GoogleClient } from './client.ts';
import { providerName } from './config.ts';
import type { GoogleEventWrites } from './eventWrites.ts';
import { googleAttendees, googleScheduling } from './guests.ts';
import { seriesExceptionsOf } from './seriesExceptions.ts';
import type { GoogleAccount } from './session.ts';
import { googleChanges, googleFollowing, googleNewEvent } from './toWire.ts';
import type { GoogleAttendee, GoogleEvent } from './wire.ts';

/** Reads and writes over one session, so a token refreshed by one serves the other. */
export interface GoogleWriteSession {
  client: GoogleClient;
  writes: GoogleEventWrites;
}

const responseStatus: Record<RsvpResponse, NonNullable<GoogleAttendee['responseStatus']>> = {
  accepted: 'accepted',
  declined: 'declined',
  tentative: 'tentative',
};

/** A master's recurrence lines as its series moves to `timing` on the same days (UNTIL moves along). */
function movedRules(master: GoogleEvent, timing: Extract<EventTiming, { allDay: false }>): string[] {
  const from = master.start?.dateTime;
  if (from === undefined) return master.recurrence ?? [];
  const zone = timing.timeZone;
  const fromTime = Temporal.Instant.from(from).toZonedDateTimeISO(zone).toPlainTime();
  const toTime = Temporal.PlainDateTime.from(timing.start).toPlainTime();
  return (master.recurrence ?? []).map((line) =>
    /^RRULE:/i.test(line) ? `RRULE:${ruleMovedInDay(line.slice(6), zone, fromTime, toTime)}` : line,
  );
}

export function createGoogleWriter(
  open: (account: GoogleAccount) => GoogleWriteSession,
): EventWriter<'google'> {
  /** The event, series master or instance the target names, as Google has it now. */
  async function current(client: GoogleClient, calendar: ProviderCalendar, target: WriteTarget) {
    const calendarId = calendar.providerCalendarId;
    const event =
      target.recurrenceId === undefined
        ? await client.event(calendarId, target.providerEventId)
        : (
            await client.instances(calendarId, target.providerEventId, {
              originalStart: target.recurrenceId,
            })
          )?.items[0];
    if (event?.id === undefined || event.status === 'cancelled') {
      throw new AppError('not_found', `${providerName} has no such event or occurrence.`, {
        details: { reason: 'missing' },
      });
    }
    return event as GoogleEvent & { id: string };
  }

  /** The id a write goes to: the event's own, or the instance's for one occurrence. */
  async function eventIdOf(client: GoogleClient, calendar: ProviderCalendar, target: WriteTarget) {
    if (target.recurrenceId === undefined) return target.providerEventId;
    return (await current(client, calendar, target)).id;
  }

  return {
    async createEvent(account, calendar, event, uid) {
      const { writes } = open(account);
      const created = await writes.insert(calendar.providerCalendarId, {
        ...googleNewEvent(event, uid),
        ...(event.guests === undefined ? {} : { attendees: googleAttendees([], event.guests) }),
      });
      if (typeof created.id !== 'string' || created.id === '') {
        throw new AppError('provider_unavailable', `${providerName} did not say which event it created.`, {
          details: { reason: 'bad_response' },
        });
      }
      return created.id;
    },

    async findCreated(account, calendar, uid) {
      const event = await open(account).client.event(calendar.providerCalendarId, uid);
      return event === undefined || event.status === 'cancelled' ? undefined : (event.id ?? uid);
    },

    async updateEvent(account, calendar, target, changes, notice = 'send') {
      const { client, writes } = open(account);
      const body = googleChanges(changes);
      const movesSeries =
        target.recurrenceId === undefined && changes.timing !== undefined && changes.recurrence === undefined;
      if (changes.guests === undefined && !movesSeries) {
        await writes.patch(
          calendar.providerCalendarId,
          await eventIdOf(client, calendar, target),
          body,
          target.version,
          notice,
        );
        return;
      }
      // Guests change on the list Google holds, a moved series' UNTIL on its rule: the If-Match
      // below refuses the patch if the event moved on since.
      const event = await current(client, calendar, target);
      if (changes.guests !== undefined) {
        if (event.attendeesOmitted) {
          throw new AppError(
            'guests_or_scheduling',
            `${providerName} did not list every guest of this event, so the list cannot be changed safely here.`,
            { details: { editBlockedReason: 'guests_or_scheduling' } },
          );
        }
        body.attendees = googleAttendees(event.attendees ?? [], changes.guests);
      }
      if (movesSeries && event.recurrence !== undefined && changes.timing?.allDay === false) {
        body.recurrence = movedRules(event, changes.timing);
      }
      await writes.patch(calendar.providerCalendarId, event.id, body, target.version, notice);
    },

    async deleteEvent(account, calendar, target, notice = 'send') {
      const { client, writes } = open(account);
      const eventId = await eventIdOf(client, calendar, target);
      await writes.remove(calendar.providerCalendarId, eventId, target.version, notice);
    },

    async createFollowing(account, calendar, target, following, uid) {
      const { client, writes } = open(account);
      const master = await current(client, calendar, target);
      // Copied as it was read: a change since is a conflict, as an If-Match would say.
      if (master.etag !== target.version) {
        throw new AppError('conflict', `The event changed on ${providerName} since it was read.`, {
          details: { reason: 'version' },
        });
      }
      const created = await writes.insert(
        calendar.providerCalendarId,
        googleFollowing(master, following, uid),
      );
      if (typeof created.id !== 'string' || created.id === '') {
        throw new AppError('provider_unavailable', `${providerName} did not say which event it created.`, {
          details: { reason: 'bad_response' },
        });
      }
      return created.id;
    },

    async endSeries(account, calendar, target, until, notice = 'send') {
      const { client, writes } = open(account);
      const master = await current(client, calendar, target);
      const lines = master.recurrence ?? [];
      if (!lines.some((line) => /^RRULE:/i.test(line))) {
        throw new AppError('not_found', `${providerName} holds no repeating rule for this event.`, {
          details: { reason: 'missing' },
        });
      }
      const recurrence = lines.map((line) =>
        /^RRULE:/i.test(line) ? `RRULE:${ruleEndingAt(line.slice(6), until)}` : line,
      );
      await writes.patch(calendar.providerCalendarId, master.id, { recurrence }, target.version, notice);
    },

    async seriesExceptions(account, calendar, providerEventId) {
      const { client } = open(account);
      const master = await current(client, calendar, { providerEventId, version: '' });
      const items =
        master.iCalUID === undefined
          ? []
          : await client.seriesItems(calendar.providerCalendarId, master.iCalUID);
      return seriesExceptionsOf(master, items);
    },

    scheduling: async (_account, calendar) => googleScheduling(calendar),

    async respondToEvent(account, calendar, target, answer) {
      const { client, writes } = open(account);
      const event = await current(client, calendar, target);
      const attendees = event.attendees ?? [];
      if (!attendees.some((attendee) => attendee.self)) {
        throw new AppError('access_denied', 'You are not invited to this event.');
      }
      // The whole list goes back with only the user's own entry changed, as patch replaces arrays.
      const answered = attendees.map((attendee) =>
        attendee.self
          ? {
              ...attendee,
              responseStatus: responseStatus[answer.response],
              ...(answer.comment === undefined ? {} : { comment: answer.comment }),
            }
          : attendee,
      );
      await writes.patch(
        calendar.providerCalendarId,
        event.id,
        {
          attendees: answered,
          // A partial list (a large meeting): Google then updates only the entries sent.
          ...(event.attendeesOmitted ? { attendeesOmitted: true } : {}),
        },
        target.version,
        'send',
      );
    },
  };
}
