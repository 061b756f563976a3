/**
 * The guests' part of a write, decided before anything is sent. A new event's guests are
 * invited (the calendar sends the invitations where it delivers them); a change or a deletion
 * of an event with guests needs the user's explicit `notifyAttendees`, refused where the
 * calendar cannot honour it. The calendar is asked how it schedules only for such writes.
 */
import type { Guest, GuestChanges, GuestNotice } from '../../domain/eventChanges.ts';
import {
  concernsGuests,
  type GuestsAnswer,
  guestsAnswer,
  guestsOf,
  noticeFor,
  plannedGuests,
  requireNotifyChoice,
} from '../../domain/guests.ts';
import type { ProviderOccurrence } from '../../domain/providerFacts.ts';
import type { FreshCalendar } from './freshCalendar.ts';

export interface GuestChoice {
  /** Required when the event has guests: whether the calendar tells them of this write. */
  notifyAttendees?: boolean;
}

export interface GuestPlan {
  notice: GuestNotice;
  answer: GuestsAnswer;
}

const schedulingOf = (fresh: FreshCalendar) => fresh.writer.scheduling(fresh.access, fresh.calendar);

/** The invitations of a new event; undefined without guests. */
export async function invitations(
  fresh: FreshCalendar,
  guests: readonly Guest[] | undefined,
): Promise<GuestsAnswer | undefined> {
  if (guests === undefined || guests.length === 0) return undefined;
  const scheduling = await schedulingOf(fresh);
  const { guests: emails } = plannedGuests(undefined, { add: [...guests], remove: [] }, scheduling, {
    add: 'attendees',
    remove: 'attendees',
  });
  return guestsAnswer(emails, scheduling.delivers, 'send');
}

/** How an update or deletion treats the event's guests; undefined when it concerns none. */
export async function guestPlan(
  fresh: FreshCalendar,
  occurrence: ProviderOccurrence,
  action: 'update' | 'delete',
  changes: GuestChanges | undefined,
  choice: GuestChoice,
): Promise<GuestPlan | undefined> {
  if (!concernsGuests(occurrence, changes)) return undefined;
  const notify = requireNotifyChoice(choice.notifyAttendees);
  const scheduling = await schedulingOf(fresh);
  const notice = noticeFor(action, notify, scheduling);
  let emails = guestsOf(occurrence);
  if (changes !== undefined) {
    const planned = plannedGuests(occurrence, changes, scheduling, {
      add: 'addAttendees',
      remove: 'removeAttendees',
    });
    // The removed are told too: theirs is a cancellation.
    emails = [...planned.guests, ...planned.removed];
  }
  return { notice, answer: guestsAnswer(emails, scheduling.delivers, notice) };
}
