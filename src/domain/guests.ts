/**
 * Guests of the events the user organises: the lists a write gives (checked by the one e-mail
 * rule, no address twice, never the user's own), the change checked against the event as just
 * read, and whether the calendar tells the guests of a write. Pure.
 */
import { AppError, invalidField } from '../errors.ts';
import { isEmailAddress } from '../lib/email.ts';
import type { Guest, GuestChanges, GuestNotice } from './eventChanges.ts';
import type { ProviderOccurrence } from './providerFacts.ts';

export const maxGuests = 100;
export const maxGuestNameLength = 256;

/** What a calendar does with the guests of the events the user organises. */
export interface GuestScheduling {
  /** The calendar itself sends invitations, updates and cancellations (CalDAV: servers that schedule, RFC 6638). */
  delivers: boolean;
  /** Whether `notifyAttendees: false` can be honoured for a change, for a deletion. */
  quiet: { update: boolean; delete: boolean };
  /** The user's own addresses here (the organizer, never a guest); none known → no one can be invited. */
  selfAddresses: readonly string[];
}

/** What a write's answer says of guests: those it concerns, and whether the calendar told them. */
export interface GuestsAnswer {
  notified: boolean;
  emails: string[];
}

export interface GuestInput {
  email: string;
  name?: string;
  optional?: boolean;
  /** Set by the service for a room of the workspace, never by a client. */
  room?: true;
}

const keyOf = (email: string) => email.toLowerCase();

function address(field: string, email: string): string {
  const trimmed = email.trim();
  if (!isEmailAddress(trimmed)) {
    throw invalidField(
      field,
      `${field} holds "${trimmed}", which is not an e-mail address like name@example.com.`,
    );
  }
  return trimmed;
}

function unique(field: string, emails: readonly string[]): void {
  const seen = new Set<string>();
  for (const email of emails) {
    if (seen.has(keyOf(email))) throw invalidField(field, `${field} names ${email} twice.`);
    seen.add(keyOf(email));
  }
}

/** Guests as a client lists them: at most 100, each address valid and given once (ignoring case). */
export function parseGuests(field: string, items: readonly GuestInput[]): Guest[] {
  if (items.length > maxGuests) throw invalidField(field, `At most ${maxGuests} guests.`);
  const guests = items.map((item): Guest => {
    const name = item.name?.trim();
    if (name !== undefined && name.length > maxGuestNameLength) {
      throw invalidField(field, `A guest's name has at most ${maxGuestNameLength} characters.`);
    }
    return {
      email: address(field, item.email),
      ...(name ? { name } : {}),
      optional: item.optional === true,
      ...(item.room ? { room: true as const } : {}),
    };
  });
  unique(
    field,
    guests.map((guest) => guest.email),
  );
  return guests;
}

/** Addresses to uninvite: at most 100, each valid and given once. */
export function parseAddresses(field: string, items: readonly string[]): string[] {
  if (items.length > maxGuests) throw invalidField(field, `At most ${maxGuests} addresses.`);
  const emails = items.map((email) => address(field, email));
  unique(field, emails);
  return emails;
}

/** The event's guests: everyone invited but the user. */
export const guestsOf = (occurrence: ProviderOccurrence | undefined): string[] =>
  (occurrence?.attendees ?? []).filter((attendee) => !attendee.self).map((attendee) => attendee.email);

/** Whether a write to this event, with these changes, concerns other people. */
export const concernsGuests = (occurrence: ProviderOccurrence, changes: GuestChanges | undefined): boolean =>
  occurrence.facts.attendees ||
  guestsOf(occurrence).length > 0 ||
  (changes !== undefined && changes.add.length + changes.remove.length > 0);

/** The user's own addresses: the calendar's, and the event's organizer and attendee entries marked self. */
function ownAddresses(occurrence: ProviderOccurrence | undefined, scheduling: GuestScheduling): Set<string> {
  const own = [...scheduling.selfAddresses];
  if (occurrence?.organizer?.self) own.push(occurrence.organizer.email);
  for (const attendee of occurrence?.attendees ?? []) if (attendee.self) own.push(attendee.email);
  return new Set(own.map(keyOf));
}

/**
 * The guests after the change, checked against the event as just read (none for a new event):
 * the user's own address is never a guest, an added guest is new, a removed one is there,
 * and at most 100 remain. `fields` name the arguments for the errors.
 */
export function plannedGuests(
  occurrence: ProviderOccurrence | undefined,
  changes: GuestChanges,
  scheduling: GuestScheduling,
  fields: { add: string; remove: string },
): { guests: string[]; removed: string[] } {
  if (changes.add.length > 0 && scheduling.selfAddresses.length === 0) {
    throw new AppError(
      'guests_or_scheduling',
      "This calendar does not say the user's own e-mail address, so it cannot name them as the organizer of an invitation; the user should invite guests in their calendar.",
      { details: { editBlockedReason: 'guests_or_scheduling' } },
    );
  }
  const own = ownAddresses(occurrence, scheduling);
  const current = new Map(guestsOf(occurrence).map((email) => [keyOf(email), email]));
  const removed = changes.remove.map((email) => {
    const listed = current.get(keyOf(email));
    if (listed === undefined) throw invalidField(fields.remove, `${email} is not a guest of this event.`);
    current.delete(keyOf(email));
    return listed;
  });
  for (const { email } of changes.add) {
    if (own.has(keyOf(email))) {
      throw invalidField(fields.add, `${email} is the user's own address: the user organises the event.`);
    }
    if (current.has(keyOf(email))) throw invalidField(fields.add, `${email} is already a guest.`);
    current.set(keyOf(email), email);
  }
  if (current.size > maxGuests) {
    throw invalidField(
      fields.add,
      `An event may have at most ${maxGuests} guests here; it would have ${current.size}.`,
    );
  }
  return { guests: [...current.values()], removed };
}

/** notifyAttendees is required for every write that concerns guests: nobody is told, or not, by default. */
export function requireNotifyChoice(notify: boolean | undefined): boolean {
  if (notify === undefined) {
    throw invalidField(
      'notifyAttendees',
      'This event has guests: say notifyAttendees true (the calendar tells them of this) or false (it does not, where the calendar allows it). Ask the user if unsure.',
    );
  }
  return notify;
}

/** How the calendar is to treat the guests of an update or deletion; refused where their notice cannot be withheld. */
export function noticeFor(
  action: 'update' | 'delete',
  notify: boolean,
  scheduling: GuestScheduling,
): GuestNotice {
  if (!notify && scheduling.delivers && !scheduling.quiet[action]) {
    throw invalidField(
      'notifyAttendees',
      `This calendar always tells the guests when their organizer ${action === 'update' ? 'changes' : 'deletes'} an event; it cannot be kept from them. Pass notifyAttendees true if the user agrees, or let the user do it in their calendar.`,
    );
  }
  return notify ? 'send' : 'quiet';
}

/** The answer's guests member: `emails` were told when the calendar delivers and the notice was sent. */
export const guestsAnswer = (emails: string[], delivers: boolean, notice: GuestNotice): GuestsAnswer => ({
  notified: delivers && notice === 'send',
  emails,
});
