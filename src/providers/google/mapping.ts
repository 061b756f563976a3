/**
 * Google resources → provider port shapes (DESIGN §4). Times become a local date-time in the
 * event's IANA zone with a nominal duration: days count on the local calendar, hours are
 * elapsed, as in JSCalendar. Anything that cannot be placed in time is reported as skipped.
 */
import { alertOffset } from '../../domain/alertOffset.ts';
import type {
  Alert,
  AlertAction,
  Privacy,
  ResponseStatus,
  VirtualLocation,
  WorkingLocation,
} from '../../domain/event.ts';
import type {
  Attendee,
  CalendarAccess,
  EditFacts,
  Participant,
  ProviderCalendar,
  ProviderOccurrence,
  SkippedItem,
} from '../../domain/providerFacts.ts';
import { isEmailAddress } from '../../lib/email.ts';
import type {
  GoogleAccessRole,
  GoogleAttendee,
  GoogleCalendarListEntry,
  GoogleEvent,
  GoogleEventDateTime,
  GooglePerson,
  GoogleReminder,
} from './wire.ts';

export interface MappingContext {
  /** The calendar's zone, for timed events that name none. */
  timeZone?: string;
  access: CalendarAccess;
  /** Applied to timed events whose reminders say `useDefault`. */
  defaultReminders: GoogleReminder[];
}

/** The context a listing gives its events: the calendar's own zone first, then the listing's. */
export const mappingContext = (
  calendar: ProviderCalendar,
  listing: { timeZone?: string; defaultReminders: GoogleReminder[] },
): MappingContext => ({
  timeZone: calendar.timeZone ?? listing.timeZone,
  access: calendar.access,
  defaultReminders: listing.defaultReminders,
});

export type Mapped = { occurrence: ProviderOccurrence } | { skipped: SkippedItem };

const accessByRole: Record<GoogleAccessRole, CalendarAccess> = {
  owner: 'owner',
  writer: 'writer',
  reader: 'reader',
  freeBusyReader: 'freeBusy',
  none: 'freeBusy',
};

export const mapCalendar = (entry: GoogleCalendarListEntry): ProviderCalendar =>
  compact({
    providerCalendarId: entry.id,
    name: entry.summaryOverride ?? entry.summary ?? entry.id,
    timeZone: entry.timeZone === undefined ? undefined : canonicalZone(entry.timeZone),
    color: entry.backgroundColor,
    primary: entry.primary === true,
    access: accessByRole[entry.accessRole] ?? 'freeBusy',
  });

export function mapEvent(event: GoogleEvent, context: MappingContext): Mapped {
  const providerEventId = event.recurringEventId ?? event.id;
  if (providerEventId === undefined) return { skipped: { reason: 'event without an id' } };
  let time: ReturnType<typeof timing>;
  try {
    time = timing(event, context.timeZone);
  } catch (error) {
    return { skipped: { providerEventId, reason: `unreadable time: ${(error as Error).message}` } };
  }
  const base = {
    providerEventId,
    recurrenceId: event.recurringEventId === undefined ? undefined : recurrenceIdOf(event.originalStartTime),
    ...time,
    status: event.status ?? 'confirmed',
  };
  // Free/busy readers get bare busy blocks: no content, no facts worth reporting.
  if (context.access === 'freeBusy') {
    return {
      occurrence: compact({
        ...base,
        freeBusyStatus: 'busy',
        facts: {
          recurring: event.recurringEventId !== undefined,
          organizer: 'unknown',
          attendees: false,
          conference: false,
          managedCopy: false,
          userIsAttendee: false,
        },
      }),
    };
  }
  const self = event.attendees?.find((attendee) => attendee.self);
  const userIsAttendee = self !== undefined && event.organizer?.self !== true;
  return {
    occurrence: compact({
      ...base,
      title: event.summary,
      // A removed description is an empty one at Google.
      description: event.description || undefined,
      locations: event.location ? [{ name: event.location }] : undefined,
      virtualLocations: nonEmpty(virtualLocations(event)),
      links: nonEmpty(links(event)),
      freeBusyStatus: event.transparency === 'transparent' ? 'free' : 'busy',
      privacy: privacyOf(event.visibility),
      alerts: nonEmpty(alerts(event, time.showWithoutTime ? [] : context.defaultReminders)),
      workingLocation: workingLocation(event),
      responseStatus: userIsAttendee ? responseOf(self.responseStatus) : undefined,
      organizer: isEmailAddress(event.organizer?.email ?? '') ? participant(event.organizer!) : undefined,
      attendees: nonEmpty(attendees(event.attendees ?? [])),
      facts: facts(event, userIsAttendee),
    }),
  };
}

function timing(event: GoogleEvent, calendarZone: string | undefined) {
  const { start, end } = event;
  if (start?.date !== undefined) {
    const first = Temporal.PlainDate.from(start.date);
    const last = end?.date === undefined ? first.add({ days: 1 }) : Temporal.PlainDate.from(end.date);
    return {
      start: first.toPlainDateTime().toString(),
      duration: durationOf(first.until(last, { largestUnit: 'day' })),
      showWithoutTime: true,
    };
  }
  if (start?.dateTime === undefined || end === undefined) throw new Error('no start or end');
  const timeZone = canonicalZone(start.timeZone ?? calendarZone ?? 'UTC');
  const from = zoned(start, timeZone);
  const to = zoned(end, end.timeZone === undefined ? timeZone : canonicalZone(end.timeZone)).withTimeZone(
    timeZone,
  );
  return {
    start: from.toPlainDateTime().toString({ smallestUnit: 'second' }),
    timeZone,
    duration: durationOf(from.until(to, { largestUnit: 'day' })),
    showWithoutTime: false,
  };
}

/** Google sends an offset with every dateTime, but accepts one without when a zone is named. */
function zoned(value: GoogleEventDateTime, timeZone: string): Temporal.ZonedDateTime {
  const dateTime = value.dateTime ?? '';
  return /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i.test(dateTime)
    ? Temporal.Instant.from(dateTime).toZonedDateTimeISO(timeZone)
    : Temporal.PlainDateTime.from(dateTime).toZonedDateTime(timeZone);
}

function durationOf(duration: Temporal.Duration): string {
  if (duration.sign < 0) throw new Error('ends before it starts');
  return duration.toString();
}

/** DESIGN §4 spells UTC as `Etc/UTC`; Google says `UTC`. */
export const canonicalZone = (zone: string): string => (zone === 'UTC' ? 'Etc/UTC' : zone);

/** An instance's recurrence id: its original start as an instant, or its date when all-day. */
export function recurrenceIdOf(original: GoogleEventDateTime | undefined): string | undefined {
  if (original?.date !== undefined) return original.date;
  if (original?.dateTime === undefined) return undefined;
  return zoned(original, canonicalZone(original.timeZone ?? 'UTC'))
    .toInstant()
    .toString();
}

function virtualLocations(event: GoogleEvent): VirtualLocation[] {
  const found: VirtualLocation[] = [];
  for (const entry of event.conferenceData?.entryPoints ?? []) {
    if (entry.entryPointType !== 'video' && entry.entryPointType !== 'phone') continue;
    found.push(compact({ uri: entry.uri, name: entry.label }));
  }
  // The Meet link usually repeats the video entry point.
  if (event.hangoutLink && !found.some((location) => location.uri === event.hangoutLink)) {
    found.push({ uri: event.hangoutLink });
  }
  return found;
}

const links = (event: GoogleEvent) => [
  ...(event.htmlLink ? [{ href: event.htmlLink, rel: 'alternate' }] : []),
  ...(event.attachments ?? []).map((file) => compact({ href: file.fileUrl, title: file.title })),
];

const privacyByVisibility: Record<string, Privacy> = {
  public: 'public',
  private: 'private',
  confidential: 'secret',
};
const privacyOf = (visibility: string | undefined): Privacy | undefined =>
  visibility === undefined ? undefined : privacyByVisibility[visibility];

const actionByMethod: Record<string, AlertAction> = { popup: 'display', email: 'email' };

/** Google's calendar defaults are for timed events; all-day defaults are not in the API. */
function alerts(event: GoogleEvent, defaults: GoogleReminder[]): Alert[] {
  const reminders = event.reminders?.useDefault ? defaults : (event.reminders?.overrides ?? []);
  return reminders.map((reminder) =>
    compact({
      offset: alertOffset(-reminder.minutes * 60),
      action: actionByMethod[reminder.method],
    }),
  );
}

function workingLocation(event: GoogleEvent): WorkingLocation | undefined {
  const properties = event.workingLocationProperties;
  if (properties === undefined) return undefined;
  if (properties.type === 'officeLocation' || (!properties.type && properties.officeLocation)) {
    return compact<WorkingLocation>({ type: 'office', label: properties.officeLocation?.label });
  }
  if (properties.type === 'customLocation' || (!properties.type && properties.customLocation)) {
    return compact<WorkingLocation>({ type: 'custom', label: properties.customLocation?.label });
  }
  return { type: 'home' };
}

const responseByGoogle: Record<string, ResponseStatus> = {
  needsAction: 'needs-action',
  accepted: 'accepted',
  declined: 'declined',
  tentative: 'tentative',
};
const responseOf = (status: string | undefined): ResponseStatus =>
  responseByGoogle[status ?? 'needsAction'] ?? 'needs-action';

const participant = (person: GooglePerson): Participant =>
  compact({ email: person.email ?? '', name: person.displayName || undefined, self: person.self === true });

/** Attendees with an address (Google requires one when adding them). */
const attendees = (listed: GoogleAttendee[]): Attendee[] =>
  listed
    .filter((attendee) => isEmailAddress(attendee.email ?? ''))
    .map((attendee) => ({
      ...participant(attendee),
      optional: attendee.optional === true,
      response: responseOf(attendee.responseStatus),
    }));

function facts(event: GoogleEvent, userIsAttendee: boolean): EditFacts {
  const others = (event.attendees ?? []).some((attendee) => !attendee.self);
  return compact({
    recurring: event.recurringEventId !== undefined || event.recurrence !== undefined,
    organizer: event.organizer === undefined ? 'none' : event.organizer.self ? 'self' : 'other',
    // With attendeesOmitted Google lists only the user; the others exist all the same.
    attendees: others || event.attendeesOmitted === true,
    conference: event.conferenceData !== undefined || event.hangoutLink !== undefined,
    managedCopy:
      event.eventType === 'birthday' ||
      event.eventType === 'fromGmail' ||
      event.privateCopy === true ||
      event.locked === true,
    version: event.etag,
    userIsAttendee,
  });
}

const nonEmpty = <T>(list: T[]): T[] | undefined => (list.length === 0 ? undefined : list);

/** Drops undefined members, so mapped objects carry only the fields that have values. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}
