/**
 * The provider port: what every calendar adapter (CalDAV, ICS, Google, Microsoft) offers.
 * Adapters receive credentials and an HTTP client; they never touch the database, and they
 * report provider facts — the core decides ids, visibility and edit rights from them.
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
} from '../domain/event.ts';
import type { EventRecurrence } from '../domain/eventRecurrence.ts';

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

export interface TimeWindow {
  start: Temporal.Instant;
  end: Temporal.Instant;
}

export interface OAuthTokens {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds when the access token expires. */
  expiresAt: number;
}

export type Credentials =
  | { kind: 'caldav'; serverUrl: string; username: string; password: string; calendarHomeUrl?: string }
  | { kind: 'ics'; url: string }
  | ({ kind: 'google' } & OAuthTokens)
  | ({ kind: 'microsoft' } & OAuthTokens);

export type CredentialsOf<K extends ProviderKind> = Extract<Credentials, { kind: K }>;

/** One connected account as an adapter sees it. */
export interface AccountAccess<C extends Credentials = Credentials> {
  /** Opaque key for per-account limits (concurrency caps). */
  accountKey: string;
  credentials: C;
  /** Persists credentials the adapter changed (a refreshed token); the caller encrypts and stores them. */
  saveCredentials(credentials: C): Promise<void>;
}

/**
 * When an event being written happens: whole days (`endDate` exclusive, as in iCalendar), or
 * local date-times `YYYY-MM-DDTHH:MM:SS` that both exist exactly once in `timeZone` (IANA).
 */
export type EventTiming =
  | { allDay: true; startDate: string; endDate: string }
  | { allDay: false; start: string; end: string; timeZone: string };

/** The fields a write may set; an absent member stays as it is, `null` removes it. */
export interface EventFields {
  title?: string;
  description?: string | null;
  /** One location, by name. */
  location?: string | null;
  timing?: EventTiming;
  freeBusyStatus?: FreeBusyStatus;
  privacy?: 'public' | 'private';
}

export interface NewEvent extends EventFields {
  title: string;
  timing: EventTiming;
  /** Makes the event the first occurrence of a series. */
  recurrence?: EventRecurrence;
}

/**
 * What a write addresses, as the fresh read just saw it. Without `recurrenceId` a recurring
 * event's whole series is meant; with it, that one occurrence only (never the series).
 */
export interface WriteTarget {
  providerEventId: string;
  /** Exactly as the adapter reported it in ProviderOccurrence.recurrenceId. */
  recurrenceId?: string;
  /** The version the fresh read saw: the provider must refuse the write if it changed (If-Match). */
  version: string;
}

export type RsvpResponse = 'accepted' | 'declined' | 'tentative';

/**
 * Writes, for adapters whose provider allows them (ICS has none). They are never retried by
 * ProviderHttp (not idempotent); the write service decides what a failure means. Errors:
 * `conflict` (details.reason `version`: the version changed; `exists`: the uid is taken),
 * `not_found`, `calendar_read_only` (the provider refused the write as not permitted),
 * `recurring_event` (the provider cannot write that occurrence alone), `provider_unavailable`
 * (timeouts, network, 429 and 5xx: the outcome is the service's to establish), `reconnect_required`.
 */
export interface EventWriter<K extends ProviderKind = ProviderKind> {
  /**
   * Creates a single event whose provider-side identity derives from `uid` (a CalDAV UID and
   * object name, a Google event id, a Graph transaction id), so a repeated create cannot make a
   * second event. Resolves with the new event's providerEventId.
   */
  createEvent(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    event: NewEvent,
    uid: string,
  ): Promise<string>;
  /** The providerEventId of the event created with `uid`, if it exists. */
  findCreated(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    uid: string,
  ): Promise<string | undefined>;
  updateEvent(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    target: WriteTarget,
    changes: EventFields,
  ): Promise<void>;
  deleteEvent(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    target: WriteTarget,
  ): Promise<void>;
  /** The connected user's own answer as an attendee, with an optional comment to the organizer. */
  respondToEvent(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    target: WriteTarget,
    answer: { response: RsvpResponse; comment?: string },
  ): Promise<void>;
}

export interface CalendarProvider<K extends ProviderKind = ProviderKind> {
  readonly kind: K;
  /**
   * First contact with credentials a person just typed: checks them (errors name the form field)
   * and completes them (a discovered home URL). Adapters without it are checked by listCalendars.
   */
  connect?(
    credentials: CredentialsOf<K>,
  ): Promise<{ credentials: CredentialsOf<K>; calendars: ProviderCalendar[] }>;
  listCalendars(account: AccountAccess<CredentialsOf<K>>): Promise<ProviderCalendar[]>;
  /**
   * Occurrences overlapping the window. Floating and all-day occurrences cannot be placed
   * without a zone, so adapters include those within a day of the window; the core filters.
   */
  listEvents(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    window: TimeWindow,
  ): Promise<EventsResult>;
  /**
   * A fresh read of one event (for a recurring one: the occurrence named by `recurrenceId`, or
   * the series' first occurrence without it); undefined when it no longer exists.
   */
  getEvent(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    providerEventId: string,
    recurrenceId?: string,
  ): Promise<ProviderOccurrence | undefined>;
  /** Present when the provider accepts writes. */
  readonly writer?: EventWriter<K>;
}
