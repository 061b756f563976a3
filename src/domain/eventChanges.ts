/** What a write asks of a provider: the fields it sets, a new event, the event it addresses, an answer. */

import type { AlertAction, FreeBusyStatus } from './event.ts';
import type { EventRecurrence } from './eventRecurrence.ts';
import type { EventTiming } from './eventTiming.ts';

/** The fields a write may set; an absent member stays as it is, `null` removes it. */
export interface EventFields {
  title?: string;
  description?: string | null;
  /** One location, by name. */
  location?: string | null;
  timing?: EventTiming;
  freeBusyStatus?: FreeBusyStatus;
  privacy?: 'public' | 'private';
  /** The event's reminders, all of them: an empty list removes every one. */
  alerts?: WriteAlert[];
  /** Guests invited and uninvited (domain/guests.ts checked them against the event). */
  guests?: GuestChanges;
  /** A series' new rule (with `timing`, the series' first occurrence; domain/seriesChanges.ts). */
  recurrence?: EventRecurrence;
}

/** A reminder a write sets: some whole minutes before the start (0 = at the start). */
export interface WriteAlert {
  minutesBefore: number;
  action: AlertAction;
}

/** A person a write invites. */
export interface Guest {
  email: string;
  name?: string;
  optional: boolean;
  /** A room of the workspace, booked as a resource attendee (its name is the room's). */
  room?: true;
}

export interface GuestChanges {
  add: Guest[];
  /** Addresses, compared without case. */
  remove: string[];
}

/** Whether the calendar tells the guests of a change or a deletion (where it can be kept from them). */
export type GuestNotice = 'send' | 'quiet';

export interface NewEvent extends EventFields {
  title: string;
  timing: EventTiming;
  /** Adds the provider's own online meeting (Google Meet, Microsoft Teams). */
  conference?: boolean;
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
 * An occurrence of a series that its provider holds apart from the rule: `changed` (an override,
 * a Google exception), `cancelled` (an EXDATE, a cancelled instance) or `added` (an RDATE).
 */
export interface SeriesException {
  /** The occurrence's original start, as the adapter reports recurrence ids. */
  recurrenceId: string;
  kind: 'changed' | 'cancelled' | 'added';
}

/** A new series going on from one occurrence of another (scope "following"). */
export interface FollowingSeries {
  /** The occurrence's own start, local (`YYYY-MM-DDTHH:MM:SS`), where the new series starts. */
  from: string;
  /** What the new series sets over the old one's fields: `timing` its first occurrence, `recurrence` a restated rule. */
  fields: EventFields & { timing: EventTiming };
}
