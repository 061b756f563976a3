/**
 * The Microsoft Graph calendar provider: calendars of the signed-in mailbox (own, shared,
 * delegated), their expanded occurrences from `calendarView`, writes (`writer.ts`), delta sync
 * (`sync.ts`) and webhook subscriptions (`push.ts`).
 */

import type { EventsResult, ProviderCalendar, ProviderOccurrence } from '../../domain/providerFacts.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { CalendarProvider } from '../port.ts';
import type { ProviderHttp } from '../providerHttp.ts';
import { GraphClient } from './client.ts';
import { type MicrosoftConfig, providerName } from './config.ts';
import {
  calendarPath,
  eventFields,
  findInstance,
  instancesAround,
  instantOrUndefined,
  pageSize,
  readEvent,
  viewWindow,
} from './eventLookup.ts';
import { createMailboxes, meFields } from './mailbox.ts';
import { mapCalendar, mapEvent, mapNear, sharedWithUser } from './mapping.ts';
import { reachesSharedCalendars } from './oauth.ts';
import { createMicrosoftPush } from './push.ts';
import { graphRooms } from './rooms.ts';
import { graphSchedules } from './schedule.ts';
import { createMicrosoftSync } from './sync.ts';
import type { GraphCalendar, GraphEvent, GraphUser } from './wire.ts';
import { createMicrosoftWriter } from './writer.ts';

const calendarFields = 'id,name,hexColor,isDefaultCalendar,canEdit,canShare,owner';

export function createMicrosoftProvider(deps: {
  http: ProviderHttp;
  config: MicrosoftConfig;
  clock: Clock;
}): CalendarProvider<'microsoft'> {
  const client = new GraphClient(deps);
  const mailboxes = createMailboxes(client);

  return {
    kind: 'microsoft',
    writer: createMicrosoftWriter(client, mailboxes),
    sync: createMicrosoftSync(client),
    push: createMicrosoftPush(client, deps.clock),

    freeBusy(account, emails, window) {
      return graphSchedules(client, account, emails, window);
    },

    listRooms(account) {
      return graphRooms(client, account);
    },

    async listCalendars(account) {
      const [me, calendars] = await Promise.all([
        client.get<GraphUser>(account, '/me', { $select: meFields }),
        client.getAll<GraphCalendar>(account, '/me/calendars', { $select: calendarFields }),
      ]);
      const email = mailboxes.remember(account, me);
      // Graph lists the calendars others shared with the person either way, but without the
      // shared scope reading them is refused: such an account shows its own until reconnected.
      const reachable = reachesSharedCalendars(account.credentials)
        ? calendars
        : calendars.filter((calendar) => !sharedWithUser(calendar, email));
      return reachable.map((calendar) => mapCalendar(calendar, email));
    },

    async listEvents(account, calendar, window): Promise<EventsResult> {
      const events = await client.getAll<GraphEvent>(account, `${calendarPath(calendar)}/calendarView`, {
        ...viewWindow(window),
        $select: eventFields,
        $top: pageSize,
      });
      const mapped = events.map((event) => mapNear(event, calendar, window));
      return {
        occurrences: mapped.flatMap((event) => event.occurrences),
        skipped: mapped.flatMap((event) => event.skipped),
      };
    },

    async getEvent(account, calendar, providerEventId, recurrenceId) {
      const [event, mailbox] = await Promise.all([
        readEvent(client, account, calendar, providerEventId),
        mailboxes.addressOf(account),
      ]);
      if (event === undefined) return undefined;
      // A single event has no occurrence to name (a series that became single lost them).
      if (event.type !== 'seriesMaster')
        return recurrenceId === undefined ? readable(event, calendar, mailbox) : undefined;

      if (recurrenceId !== undefined) {
        const instance = await findInstance(client, account, calendar, providerEventId, recurrenceId);
        const mapped = instance && mapEvent(instance, calendar, mailbox);
        return mapped && 'occurrence' in mapped ? mapped.occurrence : undefined;
      }
      const around = seriesStart(event);
      if (around === undefined) throw unreadable('series without a readable start');
      const first = (await instancesAround(client, account, calendar, providerEventId, around))
        .flatMap((instance) => {
          const result = mapEvent(instance, calendar, mailbox);
          return 'occurrence' in result ? [result.occurrence] : [];
        })
        .sort((a, b) => Temporal.Instant.compare(a.recurrenceId!, b.recurrenceId!))[0];
      // The series is read through its first occurrence, but written as a whole: against the master's version.
      return first && withVersion(first, event.changeKey);
    },
  };
}

function withVersion(
  occurrence: ProviderOccurrence,
  changeKey: string | null | undefined,
): ProviderOccurrence {
  const { version: _occurrenceVersion, ...facts } = occurrence.facts;
  return { ...occurrence, facts: changeKey ? { ...facts, version: changeKey } : facts };
}

function readable(
  event: GraphEvent,
  calendar: ProviderCalendar,
  mailbox: string | undefined,
): ProviderOccurrence {
  const result = mapEvent(event, calendar, mailbox);
  if ('skipped' in result) throw unreadable(result.skipped.reason);
  return result.occurrence;
}

const unreadable = (problem: string) =>
  new AppError(
    'provider_unavailable',
    `${providerName} returned an event this service cannot read (${problem}).`,
    {
      details: { reason: 'unreadable' },
    },
  );

/** Near the series' first start (to within a day: all-day masters come in their own zone). */
function seriesStart(master: GraphEvent): Temporal.Instant | undefined {
  return master.start ? instantOrUndefined(`${master.start.dateTime.slice(0, 19)}Z`) : undefined;
}
