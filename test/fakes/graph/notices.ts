/**
 * What Exchange tells people of a write through Graph: an organizer's new meeting invites its
 * attendees, a change updates those who stay (invites the added, cancels for the removed), a
 * deletion cancels for all — Graph offers no way to keep these from them; an attendee's answer
 * goes to the organizer unless `sendResponse` is false.
 */

import { organizerNotices } from '../guestNotices.ts';

export interface GraphNotice {
  kind: 'invitation' | 'update' | 'cancellation' | 'reply';
  eventId: string;
  to: string;
}

type Rendered = Record<string, unknown> | undefined;
type Attendee = { emailAddress?: { address?: string } };

const attendeesOf = (event: Rendered): string[] =>
  ((event?.attendees as Attendee[] | undefined) ?? []).map((attendee) =>
    (attendee.emailAddress?.address ?? '').toLowerCase(),
  );

export function graphNotices(
  method: string,
  action: string | undefined,
  body: unknown,
  before: Rendered,
  after: Rendered,
): GraphNotice[] {
  const event = after ?? before;
  const eventId = String(event?.id ?? '');
  const to = (kind: GraphNotice['kind'], emails: string[]) =>
    emails.map((email): GraphNotice => ({ kind, eventId, to: email }));
  if (action !== undefined) {
    const organizer = (event?.organizer as { emailAddress?: { address?: string } } | undefined)?.emailAddress
      ?.address;
    const silent = (body as { sendResponse?: unknown } | undefined)?.sendResponse === false;
    return organizer === undefined || silent ? [] : to('reply', [organizer.toLowerCase()]);
  }
  if (event?.isOrganizer === false) return [];
  const [was, is] = [attendeesOf(before), attendeesOf(after)];
  return organizerNotices(method, was, is).map(({ kind, to: email }) => ({ kind, eventId, to: email }));
}
