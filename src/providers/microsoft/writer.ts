/**
 * Writes to Graph events. A create carries the service's uid twice: as `transactionId` (Graph
 * answers a repeated POST with the event it made) and in an extended property of our own, which
 * `findCreated` filters on. Changes are conditional on the changeKey just read (If-Match); one
 * occurrence is written through its instance id, found by its original start.
 */

import type { RsvpResponse, WriteTarget } from '../../domain/eventChanges.ts';
import type { ProviderCalendar } from '../../domain/providerFacts.ts';
import { AppError } from '../../errors.ts';
import type { EventWriter } from '../port.ts';
import type { GraphClient } from './client.ts';
import { providerName } from './config.ts';
import { calendarPath, eventPath, findInstance } from './eventLookup.ts';
import { graphAttendees, graphScheduling, withRoomLocation } from './guests.ts';
import type { Mailboxes } from './mailbox.ts';
import type { MicrosoftAccount } from './session.ts';
import { graphProperties, graphRecurrence } from './toWire.ts';
import type { GraphEvent, GraphPage } from './wire.ts';

/** A named String property in a property set of our own (a fixed GUID): the uid of a create. */
export const uidProperty = 'String {6f1e2b8a-4c3d-4f5e-9a7b-2d8c1e0f3a65} Name uid';

const answers: Record<RsvpResponse, string> = {
  accepted: 'accept',
  declined: 'decline',
  tentative: 'tentativelyAccept',
};

// Graph calendars carry no zone; all-day events go at midnight UTC unless the calendar names one.
const allDayZone = (calendar: ProviderCalendar) => calendar.timeZone ?? 'Etc/UTC';

const unsplittable = () =>
  new AppError(
    'unsupported_by_provider',
    'Microsoft 365 cannot list the cancelled occurrences of a series, so it is not split or ended here: ask the user to change the series in Outlook.',
    { details: { field: 'scope' } },
  );

export function createMicrosoftWriter(client: GraphClient, mailboxes: Mailboxes): EventWriter<'microsoft'> {
  /** The event or — for one occurrence — the instance a write goes to. */
  async function targetPath(
    account: MicrosoftAccount,
    calendar: ProviderCalendar,
    target: WriteTarget,
  ): Promise<string> {
    if (target.recurrenceId === undefined) return eventPath(calendar, target.providerEventId);
    const instance = await findInstance(
      client,
      account,
      calendar,
      target.providerEventId,
      target.recurrenceId,
    );
    if (instance === undefined)
      throw new AppError('not_found', `${providerName} has no such occurrence.`, {
        details: { reason: 'occurrence' },
      });
    return eventPath(calendar, instance.id);
  }

  return {
    // Graph v1.0 lists a series' changed occurrences (/instances, type exception) but not its
    // cancelled ones: whether a move would lose the person's own changes cannot be known.
    async seriesExceptions() {
      throw new AppError(
        'unsupported_by_provider',
        'Microsoft 365 cannot list the cancelled occurrences of a series, so its times and rule are not changed here: ask the user to change the series in Outlook, or change occurrences one by one (scope "occurrence").',
        { details: { field: 'scope' } },
      );
    },

    // Never reached (seriesExceptions refuses first); said again so no half-checked split is made.
    async createFollowing() {
      throw unsplittable();
    },
    async endSeries() {
      throw unsplittable();
    },

    async createEvent(account, calendar, event, uid) {
      const created = await client.write<GraphEvent>(account, `${calendarPath(calendar)}/events`, {
        method: 'POST',
        body: {
          ...graphProperties(event, allDayZone(calendar)),
          ...(event.recurrence === undefined
            ? {}
            : { recurrence: graphRecurrence(event.recurrence, event.timing, allDayZone(calendar)) }),
          ...(event.conference === true
            ? { isOnlineMeeting: true, onlineMeetingProvider: 'teamsForBusiness' }
            : {}),
          // Graph sends the invitations itself when the organizer creates an event with attendees.
          ...(event.guests === undefined ? {} : { attendees: graphAttendees([], event.guests) }),
          ...withRoomLocation(event),
          transactionId: uid,
          singleValueExtendedProperties: [{ id: uidProperty, value: uid }],
        },
      });
      if (typeof created?.id !== 'string' || created.id === '')
        throw new AppError('provider_unavailable', `${providerName} did not say which event it created.`, {
          details: { reason: 'unreadable' },
        });
      return created.id;
    },

    async findCreated(account, calendar, uid) {
      const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;
      const page = await client.get<GraphPage<Pick<GraphEvent, 'id'>>>(
        account,
        `${calendarPath(calendar)}/events`,
        {
          $filter: `singleValueExtendedProperties/Any(ep: ep/id eq ${literal(uidProperty)} and ep/value eq ${literal(uid)})`,
          $select: 'id',
          $top: '1',
        },
      );
      return page.value[0]?.id;
    },

    // Graph tells the attendees of every change and deletion: `notice` has no say here (scheduling says so).
    async updateEvent(account, calendar, target, changes) {
      const path = await targetPath(account, calendar, target);
      const body = graphProperties(changes, allDayZone(calendar));
      if (changes.guests !== undefined) {
        // The collection as Graph holds it now; the If-Match below refuses the PATCH if it moved on.
        const now = await client.get<Pick<GraphEvent, 'attendees'>>(account, path, { $select: 'attendees' });
        body.attendees = graphAttendees(now.attendees ?? [], changes.guests);
        Object.assign(body, withRoomLocation(changes));
      }
      await client.write(account, path, { method: 'PATCH', body, changeKey: target.version });
    },

    async deleteEvent(account, calendar, target) {
      await client.write(account, await targetPath(account, calendar, target), {
        method: 'DELETE',
        changeKey: target.version,
      });
    },

    scheduling: async (account) => graphScheduling(await mailboxes.addressOf(account)),

    async respondToEvent(account, calendar, target, answer) {
      const path = await targetPath(account, calendar, target);
      await client.write(account, `${path}/${answers[answer.response]}`, {
        method: 'POST',
        body: { ...(answer.comment === undefined ? {} : { comment: answer.comment }), sendResponse: true },
        changeKey: target.version,
      });
    },
  };
}
