/**
 * Provider facts: calendars and occurrences as a provider reports them, in the core's words.
 * Adapters produce them; the core turns them into Events (ids, placement, visibility, rights).
 */
import type {
  Alert,
  EventStatus,
  FreeBusyStatus,
  Link,
  Location,
  Privacy,
  ResponseStatus,
  VirtualLocation,
  WorkingLocation,
} from './event.ts';

export type ProviderKind = 'caldav' | 'ics' | 'google' | 'microsoft';

/** What the connected user may do with a calendar, as the provider says. */
export type CalendarAccess = 'owner' | 'writer' | 'reader' | 'freeBusy';

export interface ProviderCalendar {
  /** The provider's own id (CalDAV: the collection URL; ICS: the feed URL; Google/Graph: calendar id). */
  providerCalendarId: string;
  name: string;
  /** IANA zone the calendar declares, if any (CalDAV calendar-timezone, X-WR-TIMEZONE, Google timeZone). */
  timeZone?: string;
  color?: string;
  primary: boolean;
  access: CalendarAccess;
}

/** Facts the core turns into canEdit / canRespond / editBlockedReason. */
export interface EditFacts {
  /** Part of a recurring series (an instance or an override). */
  recurring: boolean;
  /** Whether the connected user organises the event; `none` when it has no organizer at all. */
  organizer: 'self' | 'other' | 'none' | 'unknown';
  /** Has attendees other than the user (a scheduling object). */
  attendees: boolean;
  /** Carries a provider-managed conference (Meet, Teams) that an edit could break. */
  conference: boolean;
  /** A copy managed elsewhere: birthdays from contacts, subscribed and holiday feeds, locked private copies. */
  managedCopy: boolean;
  /** The provider's version (ETag, changeKey); absent means a safe write is impossible. */
  version?: string;
  /** The user is an attendee who may respond (RSVP). */
  userIsAttendee: boolean;
}

/**
 * A person on an event as the provider lists them (name and address are stranger-written text:
 * data for the model, never searched).
 */
export interface Participant {
  email: string;
  name?: string;
  /** The connected user (or, at Google, the calendar itself). */
  self: boolean;
}

export interface Attendee extends Participant {
  optional: boolean;
  response: ResponseStatus;
}

/** One occurrence, as the provider reports it; expanded from recurrences already. */
export interface ProviderOccurrence {
  /** Stable id of the event (of its series, for recurring events) at the provider. */
  providerEventId: string;
  /** The occurrence's original start (RECURRENCE-ID), as an ISO instant or date; absent for single events. */
  recurrenceId?: string;
  /** Local date-time `YYYY-MM-DDTHH:MM:SS`. */
  start: string;
  /** IANA zone of `start`; absent for floating and all-day times (placed later with a known zone). */
  timeZone?: string;
  /** ISO 8601 duration, nominal in `timeZone` (P1D across a DST change is 23 or 25 hours). */
  duration: string;
  showWithoutTime: boolean;
  title?: string;
  description?: string;
  locations?: Location[];
  virtualLocations?: VirtualLocation[];
  links?: Link[];
  categories?: string[];
  keywords?: string[];
  color?: string;
  status: EventStatus;
  freeBusyStatus: FreeBusyStatus;
  privacy?: Privacy;
  alerts?: Alert[];
  workingLocation?: WorkingLocation;
  /** The connected user's own response, when invited. */
  responseStatus?: ResponseStatus;
  /** Who organises it, as the provider names them; full detail only (visibility.ts). */
  organizer?: Participant;
  /** Everyone invited, the user included where listed; full detail only, never searched. */
  attendees?: Attendee[];
  facts: EditFacts;
}

/** An item the adapter could not turn into occurrences; reported, never silently dropped. */
export interface SkippedItem {
  providerEventId?: string;
  reason: string;
}

export interface EventsResult {
  occurrences: ProviderOccurrence[];
  skipped: SkippedItem[];
}
