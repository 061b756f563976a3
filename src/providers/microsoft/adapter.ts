/**
 * The Microsoft Graph calendar provider: calendars of the signed-in mailbox (own, shared,
 * delegated), their expanded occurrences from `calendarView`, and writes (`writer.ts`).
 */

import type {
  EventsResult,
  ProviderCalendar,
  ProviderOccurrence,
  SkippedItem,
} from '../../domain/providerFacts.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { nearWindow } from '../nearWindow.ts';
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
} from './eventLookup.ts';
import { mapCalendar, mapEvent } from './mapping.ts';
import type { GraphCalendar, GraphEvent, GraphUser } from './wire.ts';
import { createMicrosoftWriter } from './writer.ts';

const calendarFields = 'id,name,hexColor,isDefaultCalendar,canEdit,owner';
const day = Temporal.Duration.from({ hours: 24 });

export function createMicrosoftProvider(deps: {
  http: ProviderHttp;
  config: MicrosoftConfig;
  clock: Clock;
}): CalendarProvider<'microsoft'> {
  const client = new GraphClient(deps);

  return {
    kind: 'microsoft',
    writer: createMicrosoftWriter(client),

    async listCalendars(account) {
      const [me, calendars] = await Promise.all([
        client.get<GraphUser>(account, '/me', { $select: 'id,mail,userPrincipalName' }),
        client.getAll<GraphCalendar>(account, '/me/calendars', { $select: calendarFields }),
      ]);
      const email = me.mail ?? me.userPrincipalName ?? undefined;
      return calendars.map((calendar) => mapCalendar(calendar, email));
    },

    async listEvents(account, calendar, window): Promise<EventsResult> {
      // A day's margin each side: Graph places all-day events in their own zone, the core in another.
      const events = await client.getAll<GraphEvent>(account, `${calendarPath(calendar)}/calendarView`, {
        startDateTime: window.start.subtract(day).toString(),
        endDateTime: window.end.add(day).toString(),
        $select: eventFields,
        $top: pageSize,
      });
      const occurrences: ProviderOccurrence[] = [];
      const skipped: SkippedItem[] = [];
      for (const event of events) {
        const result = mapEvent(event, calendar);
        if ('skipped' in result) skipped.push(result.skipped);
        else if (nearWindow(result.occurrence, window)) occurrences.push(result.occurrence);
      }
      return { occurrences, skipped };
    },

    async getEvent(account, calendar, providerEventId, recurrenceId) {
      const event = await readEvent(client, account, calendar, providerEventId);
      if (event === undefined) return undefined;
      // A single event has no occurrence to name (a series that became single lost them).
      if (event.type !== 'seriesMaster')
        return recurrenceId === undefined ? readable(event, calendar) : undefined;

      if (recurrenceId !== undefined) {
        const instance = await findInstance(client, account, calendar, providerEventId, recurrenceId);
        const mapped = instance && mapEvent(instance, calendar);
        return mapped && 'occurrence' in mapped ? mapped.occurrence : undefined;
      }
      const around = seriesStart(event);
      if (around === undefined) throw unreadable('series without a readable start');
      const first = (await instancesAround(client, account, calendar, providerEventId, around))
        .flatMap((instance) => {
          const result = mapEvent(instance, calendar);
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

function readable(event: GraphEvent, calendar: ProviderCalendar): ProviderOccurrence {
  const result = mapEvent(event, calendar);
  if ('skipped' in result) throw unreadable(result.skipped.reason);
  return result.occurrence;
}

const unreadable = (reason: string) =>
  new AppError('provider_unavailable', `${providerName} returned an event this service cannot read.`, {
    details: { reason },
  });

/** Near the series' first start (to within a day: all-day masters come in their own zone). */
function seriesStart(master: GraphEvent): Temporal.Instant | undefined {
  return master.start ? instantOrUndefined(`${master.start.dateTime.slice(0, 19)}Z`) : undefined;
}
