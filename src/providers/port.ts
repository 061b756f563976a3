/**
 * The provider port: what every calendar adapter (CalDAV, ICS, Google, Microsoft) offers.
 * Adapters receive credentials and an HTTP client; they never touch the database, and they
 * report provider facts (domain/providerFacts.ts) — the core decides ids, visibility and edit
 * rights from them.
 */

import type { BusySpan } from '../domain/availability.ts';
import type {
  EventFields,
  FollowingSeries,
  GuestNotice,
  NewEvent,
  RsvpResponse,
  SeriesException,
  WriteTarget,
} from '../domain/eventChanges.ts';
import type { GuestScheduling } from '../domain/guests.ts';
import type {
  EventsResult,
  ProviderCalendar,
  ProviderKind,
  ProviderOccurrence,
  SkippedItem,
} from '../domain/providerFacts.ts';
import type { Room } from '../domain/rooms.ts';
import type { TimeWindow } from '../domain/window.ts';
import type { WorkingHours } from '../domain/workingHours.ts';

export interface OAuthTokens {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds when the access token expires. */
  expiresAt: number;
  /**
   * The scopes the grant was asked for, where a refresh may ask for no more (Microsoft); absent
   * on Microsoft accounts connected before it was kept.
   */
  scopes?: string[];
}

/**
 * The address a CalDAV user has in calendars (RFC 6638 §2.4.1): ORGANIZER of what they invite
 * to, the ATTENDEE line they answer on. Where it came from: the server's
 * calendar-user-address-set, the connect form, the login (an e-mail address), or the person's
 * sign-in e-mail.
 */
export interface CalendarAddress {
  email: string;
  from: 'server' | 'form' | 'login' | 'signIn';
}

export type Credentials =
  | {
      kind: 'caldav';
      serverUrl: string;
      username: string;
      password: string;
      calendarHomeUrl?: string;
      /** Absent on accounts connected before it was kept: then only an e-mail login is known. */
      calendarAddress?: CalendarAddress;
    }
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
  /**
   * Guests (`changes.guests`) are changed on the list the provider holds now. `notice` (default
   * send): whether the calendar tells the guests, where `scheduling` says it may be withheld.
   */
  updateEvent(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    target: WriteTarget,
    changes: EventFields,
    notice?: GuestNotice,
  ): Promise<void>;
  deleteEvent(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    target: WriteTarget,
    notice?: GuestNotice,
  ): Promise<void>;
  /**
   * Creates, as `uid` (so a repeat cannot make a second one), a series going on from one
   * occurrence of the series `target` names: a copy of it, its rule going on from there, the
   * fields changed. The old series is left as it is (`endSeries` ends it after). Refused as a
   * version conflict if the series changed since it was read. Resolves with the new providerEventId.
   */
  createFollowing(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    target: WriteTarget,
    following: FollowingSeries,
    uid: string,
    notice?: GuestNotice,
  ): Promise<string>;
  /**
   * Ends the series `target` names with the rule's UNTIL set to `until` (an RRULE UNTIL value,
   * domain/seriesSplit.ts): the occurrences up to it stay, the later ones go. Asked only after
   * `seriesExceptions` found none that would go with them.
   */
  endSeries(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    target: WriteTarget,
    until: string,
    notice?: GuestNotice,
  ): Promise<void>;
  /**
   * The occurrences of the series `providerEventId` that its provider holds apart from the rule,
   * asked before a series' times or rule change; `unsupported_by_provider` where the provider
   * cannot list them all.
   */
  seriesExceptions(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    providerEventId: string,
  ): Promise<SeriesException[]>;
  /** What the calendar does with the guests of events the user organises; asked when a write concerns guests. */
  scheduling(account: AccountAccess<CredentialsOf<K>>, calendar: ProviderCalendar): Promise<GuestScheduling>;
  /** The connected user's own answer as an attendee, with an optional comment to the organizer. */
  respondToEvent(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    target: WriteTarget,
    answer: { response: RsvpResponse; comment?: string },
  ): Promise<void>;
}

/**
 * What a provider told of one person: busy time, and working hours where it knows them (Graph's
 * getSchedule; Google's freeBusy and CalDAV's VFREEBUSY have none).
 */
export interface ToldBusy {
  busy: BusySpan[];
  workingHours?: WorkingHours;
}

/** An answer without working hours, as Google and CalDAV give it. */
export const busyOnly = (told: ReadonlyMap<string, BusySpan[]>): Map<string, ToldBusy> =>
  new Map([...told].map(([key, busy]) => [key, { busy }]));

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
  /**
   * Other people's busy time as the provider tells this account (Google freeBusy, Graph
   * getSchedule, a CalDAV schedule outbox): times only, keyed by the address asked, lower-cased. An address the provider
   * cannot tell about is left out. Absent where the provider offers no such lookup.
   */
  freeBusy?(
    account: AccountAccess<CredentialsOf<K>>,
    emails: readonly string[],
    window: TimeWindow,
  ): Promise<ReadonlyMap<string, ToldBusy>>;
  /**
   * The rooms this account can book (Graph places, Google resource calendars, CalDAV principals
   * of type ROOM). Absent where the provider lists none.
   */
  listRooms?(account: AccountAccess<CredentialsOf<K>>): Promise<Room[]>;
  /** Present when the provider accepts writes. */
  readonly writer?: EventWriter<K>;
  /** Incremental sync of one calendar into the service's copy (every adapter has one). */
  readonly sync?: CalendarSync<K>;
  /** Change notifications (Google watch channels, Graph subscriptions). */
  readonly push?: PushChannels<K>;
}

/** What one sync of a calendar is asked for. */
export interface SyncRequest {
  /** Occurrences are copied inside it (all-day and floating ones within a day of it). */
  horizon: TimeWindow;
  /** The position saved with the last complete sync (the adapter's own opaque text); absent → a full sync. */
  state?: string;
  /** The version of each item the copy holds (for providers that compare versions: CalDAV without sync-collection, ICS). */
  knownVersions(): Promise<ReadonlyMap<string, string>>;
}

/** One provider item (Google/Graph event or instance, CalDAV object, ICS UID) and its occurrences in the horizon. */
export interface SyncedItem {
  /** The item's key at the provider: Google/Graph event id, CalDAV object href, ICS UID. Unique per calendar. */
  key: string;
  /** ETag, changeKey, or a hash of the content: changes when the item changes. */
  version: string;
  /** Its occurrences inside the horizon; empty when none fall there (the item is kept, its version known). */
  occurrences: ProviderOccurrence[];
}

/**
 * One step of a sync, applied by the caller in one transaction before the next is asked for.
 * A full sync marks every batch `full`: items of the copy not upserted by it are removed when
 * its last batch is applied. A rejected `state` (Google 410, Graph syncStateNotFound, CalDAV
 * invalid sync-token) makes the adapter start over as a full sync, in the same iteration.
 */
export interface SyncBatch {
  full: boolean;
  upserts: SyncedItem[];
  /** Keys of items removed at the provider (a key the copy does not hold is ignored). */
  removals: string[];
  skipped: SkippedItem[];
  /** Only on the last batch: the position to save with it; a sync that ends without it is incomplete. */
  nextState?: string;
}

export interface CalendarSync<K extends ProviderKind = ProviderKind> {
  /** Errors as listEvents (AppError with the same codes and reasons), thrown between batches. */
  syncCalendar(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    request: SyncRequest,
  ): AsyncIterable<SyncBatch>;
}

/** A running notification channel, as the provider identifies it. */
export interface PushChannel {
  /** Google: the channel id we chose; Graph: the subscription id. */
  channelId: string;
  /** Google's resourceId (needed to stop the channel). */
  resourceId?: string;
  /** Epoch milliseconds when the provider stops sending. */
  expiresAt: number;
}

export interface PushChannels<K extends ProviderKind = ProviderKind> {
  /**
   * Asks the provider to send change notifications for the calendar to `address` (https),
   * carrying `token` (Google X-Goog-Channel-Token, Graph clientState) so they can be checked.
   */
  watch(
    account: AccountAccess<CredentialsOf<K>>,
    calendar: ProviderCalendar,
    request: { channelId: string; address: string; token: string; expiresAt: number },
  ): Promise<PushChannel>;
  stop(account: AccountAccess<CredentialsOf<K>>, channel: PushChannel): Promise<void>;
}
