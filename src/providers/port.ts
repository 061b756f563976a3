/**
 * The provider port: what every calendar adapter (CalDAV, ICS, Google, Microsoft) offers.
 * Adapters receive credentials and an HTTP client; they never touch the database, and they
 * report provider facts (domain/providerFacts.ts) — the core decides ids, visibility and edit
 * rights from them.
 */
import type { EventFields, NewEvent, RsvpResponse, WriteTarget } from '../domain/eventChanges.ts';
import type {
  EventsResult,
  ProviderCalendar,
  ProviderKind,
  ProviderOccurrence,
} from '../domain/providerFacts.ts';
import type { TimeWindow } from '../domain/window.ts';

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
