/**
 * Graph resources → provider facts. Times arrive in UTC (we ask for it); an event's own zone
 * is `originalStartTimeZone` (a Windows or IANA name), and its local start is shown there.
 * All-day events are dates: Graph returns them at midnight of their own zone, unconverted.
 */
import { alertOffset } from '../../domain/alertOffset.ts';
import type { Alert, Location, Privacy, ResponseStatus, VirtualLocation } from '../../domain/event.ts';
import type {
  Attendee,
  CalendarAccess,
  EditFacts,
  Participant,
  ProviderCalendar,
  ProviderOccurrence,
  SkippedItem,
} from '../../domain/providerFacts.ts';
import { resolveTzid } from '../../domain/time/zones.ts';
import type { TimeWindow } from '../../domain/window.ts';
import { isEmailAddress } from '../../lib/email.ts';
import { nearWindow } from '../nearWindow.ts';
import { htmlToText } from './htmlText.ts';
import type {
  GraphCalendar,
  GraphDateTimeTimeZone,
  GraphEmailAddress,
  GraphEvent,
  GraphLocation,
  GraphResponse,
  GraphSensitivity,
} from './wire.ts';

/**
 * `owner` is the person who shared the calendar with the user, the user for their own ones
 * (calendar resource type); `canEdit` is false where the share allows reading only.
 */
export function mapCalendar(calendar: GraphCalendar, userEmail: string | undefined): ProviderCalendar {
  const ownedByUser =
    userEmail !== undefined && calendar.owner?.address?.toLowerCase() === userEmail.toLowerCase();
  const access: CalendarAccess = calendar.canEdit ? (ownedByUser ? 'owner' : 'writer') : 'reader';
  return withoutUndefined({
    providerCalendarId: calendar.id,
    name: calendar.name || 'Calendar',
    color: calendar.hexColor || undefined,
    primary: calendar.isDefaultCalendar === true,
    access,
  });
}

/**
 * A calendar someone else owns and shared with the user: another owner, and not the user's to
 * share (an owner address that is only an alias of the user's still leaves their own calendars
 * shareable). Unknown when the mailbox is.
 */
export const sharedWithUser = (calendar: GraphCalendar, userEmail: string | undefined): boolean =>
  userEmail !== undefined &&
  calendar.canShare !== true &&
  typeof calendar.owner?.address === 'string' &&
  calendar.owner.address.toLowerCase() !== userEmail.toLowerCase();

export type MappedEvent = { occurrence: ProviderOccurrence } | { skipped: SkippedItem };

/**
 * `mailbox`: the signed-in address, which marks the user among the guests. Only a fresh read of
 * one event knows it and reports the organizer and attendees; listings and sync leave them out
 * (nothing shows them there, and the copy drops them).
 */
export function mapEvent(event: GraphEvent, calendar: ProviderCalendar, mailbox?: string): MappedEvent {
  const skip = (reason: string): MappedEvent => ({ skipped: { providerEventId: event.id, reason } });
  const identity = eventIdentity(event);
  if (typeof identity === 'string') return skip(identity);
  const time = event.isAllDay ? allDayTime(event) : timedTime(event);
  if (typeof time === 'string') return skip(time);

  const userIsAttendee =
    calendar.access === 'owner' &&
    event.isOrganizer === false &&
    event.responseStatus?.response !== 'organizer';
  const joinUrl = event.onlineMeeting?.joinUrl || event.onlineMeetingUrl || undefined;
  const facts: EditFacts = withoutUndefined({
    recurring: identity.recurrenceId !== undefined,
    organizer: organizerFact(event, calendar),
    attendees: (event.attendees?.length ?? 0) > 0,
    conference: joinUrl !== undefined,
    // An invitation is the organizer's to change: `organizer: 'other'` says so, with its own reason.
    managedCopy: false,
    version: event.changeKey || undefined,
    userIsAttendee,
  });
  const description = bodyText(event);
  return {
    occurrence: withoutUndefined({
      ...identity,
      ...time,
      title: event.subject || undefined,
      description: description || undefined,
      locations: nonEmpty(locations(event)),
      virtualLocations:
        joinUrl === undefined ? undefined : [virtualLocation(joinUrl, event.onlineMeetingProvider)],
      links: event.webLink ? [{ href: event.webLink, rel: 'alternate' }] : undefined,
      keywords: nonEmpty(event.categories ?? []),
      status: event.isCancelled ? 'cancelled' : 'confirmed',
      freeBusyStatus: event.showAs === 'free' || event.showAs === 'workingElsewhere' ? 'free' : 'busy',
      privacy: event.sensitivity ? privacy[event.sensitivity] : undefined,
      alerts: alerts(event),
      responseStatus:
        userIsAttendee && event.responseStatus?.response
          ? responses[event.responseStatus.response]
          : undefined,
      ...(mailbox === undefined
        ? {}
        : {
            organizer: organizerOf(event, facts.organizer === 'self', mailbox),
            attendees: nonEmpty(attendeesOf(event, mailbox)),
          }),
      facts,
    }),
  };
}

/** An event as a read of `window` reports it (listings and sync alike): its occurrence if near the window, or why it is skipped. */
export function mapNear(
  event: GraphEvent,
  calendar: ProviderCalendar,
  window: TimeWindow,
): { occurrences: ProviderOccurrence[]; skipped: SkippedItem[] } {
  const result = mapEvent(event, calendar);
  if ('skipped' in result) return { occurrences: [], skipped: [result.skipped] };
  return { occurrences: nearWindow(result.occurrence, window) ? [result.occurrence] : [], skipped: [] };
}

type Identity = Pick<ProviderOccurrence, 'providerEventId' | 'recurrenceId'>;

/** Instances of a series are keyed by the series and their original start; a reason when unusable. */
function eventIdentity(event: GraphEvent): Identity | string {
  if (event.type === 'seriesMaster') return 'series master outside its instances';
  if (event.type !== 'occurrence' && event.type !== 'exception') return { providerEventId: event.id };
  if (!event.seriesMasterId) return 'instance without its series';
  // An unmoved occurrence starts where it always did; a moved one (exception) must say where that was.
  const instant = event.originalStart
    ? parseInstant(event.originalStart)
    : event.type === 'occurrence' && event.start
      ? instantOf(event.start)
      : undefined;
  if (instant === undefined) return 'instance without its original start';
  return { providerEventId: event.seriesMasterId, recurrenceId: instant.toString() };
}

type Time = Pick<ProviderOccurrence, 'start' | 'timeZone' | 'duration' | 'showWithoutTime'>;

function allDayTime(event: GraphEvent): Time | string {
  const start = plainDate(event.start);
  const end = plainDate(event.end);
  if (start === undefined || end === undefined) return 'all-day event without readable dates';
  const days = Math.max(1, start.until(end, { largestUnit: 'days' }).days);
  return { start: `${start.toString()}T00:00:00`, duration: `P${days}D`, showWithoutTime: true };
}

function timedTime(event: GraphEvent): Time | string {
  const start = event.start ? instantOf(event.start) : undefined;
  const end = event.end ? instantOf(event.end) : undefined;
  if (start === undefined || end === undefined) return 'event without readable start and end';
  const timeZone = resolveTzid(event.originalStartTimeZone ?? '') ?? 'Etc/UTC';
  const localStart = start.toZonedDateTimeISO(timeZone);
  const localEnd = end.toZonedDateTimeISO(timeZone);
  if (Temporal.ZonedDateTime.compare(localEnd, localStart) < 0) return 'event ends before it starts';
  return {
    start: localStart.toPlainDateTime().toString(),
    timeZone,
    // Days nominal, the rest exact (RFC 5545): a day across a DST change is still P1D.
    duration: localStart.until(localEnd, { largestUnit: 'days' }).toString(),
    showWithoutTime: false,
  };
}

/** A Graph date-time in its zone, to the second (Graph sends seven fraction digits). */
function instantOf(value: GraphDateTimeTimeZone): Temporal.Instant | undefined {
  const zone = resolveTzid(value.timeZone);
  if (zone === undefined) return undefined;
  try {
    return Temporal.PlainDateTime.from(value.dateTime)
      .toZonedDateTime(zone)
      .toInstant()
      .round({ smallestUnit: 'second', roundingMode: 'floor' });
  } catch {
    return undefined;
  }
}

function parseInstant(value: string): Temporal.Instant | undefined {
  try {
    return Temporal.Instant.from(value).round({ smallestUnit: 'second', roundingMode: 'floor' });
  } catch {
    return undefined;
  }
}

function plainDate(value: GraphDateTimeTimeZone | null | undefined): Temporal.PlainDate | undefined {
  try {
    return value ? Temporal.PlainDateTime.from(value.dateTime).toPlainDate() : undefined;
  } catch {
    return undefined;
  }
}

/** `isOrganizer` speaks for the calendar's owner, who is the user only in the user's own calendars. */
function organizerFact(event: GraphEvent, calendar: ProviderCalendar): EditFacts['organizer'] {
  if (typeof event.isOrganizer !== 'boolean') return 'unknown';
  if (calendar.access === 'owner') return event.isOrganizer ? 'self' : 'other';
  return event.isOrganizer ? 'other' : 'unknown';
}

const sameAddress = (a: string, b: string | undefined) =>
  b !== undefined && a.toLowerCase() === b.toLowerCase();

function person(address: GraphEmailAddress | null | undefined, self: boolean): Participant | undefined {
  const email = address?.address?.trim() ?? '';
  if (!isEmailAddress(email)) return undefined;
  const name = address?.name?.trim();
  return { email, ...(name ? { name } : {}), self };
}

function organizerOf(event: GraphEvent, self: boolean, mailbox: string): Participant | undefined {
  const address = event.organizer?.emailAddress;
  return person(address, self || sameAddress(address?.address ?? '', mailbox));
}

function attendeesOf(event: GraphEvent, mailbox: string): Attendee[] {
  return (event.attendees ?? []).flatMap((attendee): Attendee[] => {
    const found = person(attendee.emailAddress, sameAddress(attendee.emailAddress?.address ?? '', mailbox));
    if (found === undefined) return [];
    const response = attendee.status?.response;
    return [
      {
        ...found,
        optional: attendee.type === 'optional',
        // An attendee entry answering `organizer` is the organizer, who takes part.
        response:
          response === 'organizer' ? 'accepted' : ((response && responses[response]) ?? 'needs-action'),
      },
    ];
  });
}

function bodyText(event: GraphEvent): string {
  const content = event.body?.content ?? '';
  return (event.body?.contentType === 'html' ? htmlToText(content) : content.replace(/\r\n?/g, '\n')).trim();
}

function locations(event: GraphEvent): Location[] {
  const listed = event.locations?.length ? event.locations : event.location ? [event.location] : [];
  return listed.flatMap((place: GraphLocation): Location[] => {
    const name = place.displayName?.trim();
    if (!name) return [];
    const { latitude, longitude } = place.coordinates ?? {};
    const located = Number.isFinite(latitude) && Number.isFinite(longitude);
    return [located ? { name, coordinates: `geo:${latitude},${longitude}` } : { name }];
  });
}

const meetingProviders: Record<string, string> = {
  teamsForBusiness: 'Microsoft Teams',
  skypeForBusiness: 'Skype for Business',
  skypeForConsumer: 'Skype',
};

function virtualLocation(uri: string, provider: string | null | undefined): VirtualLocation {
  const name = provider ? meetingProviders[provider] : undefined;
  return name === undefined ? { uri } : { name, uri };
}

function alerts(event: GraphEvent): Alert[] | undefined {
  const minutes = event.reminderMinutesBeforeStart;
  if (!event.isReminderOn || typeof minutes !== 'number' || minutes < 0) return undefined;
  return [{ offset: alertOffset(-Math.round(minutes) * 60), action: 'display' }];
}

const privacy: Record<GraphSensitivity, Privacy> = {
  normal: 'public',
  personal: 'private',
  private: 'private',
  confidential: 'secret',
};

const responses: Record<GraphResponse, ResponseStatus | undefined> = {
  none: 'needs-action',
  notResponded: 'needs-action',
  accepted: 'accepted',
  declined: 'declined',
  tentativelyAccepted: 'tentative',
  organizer: undefined,
};

const nonEmpty = <T>(items: T[]): T[] | undefined => (items.length > 0 ? items : undefined);

/** Optional members are left out rather than set to undefined: the shapes are closed. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}
