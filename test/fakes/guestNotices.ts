/**
 * What a calendar tells the guests of an organizer's write, as Google and Exchange both do: a new
 * event invites them all, a change updates those who stay, invites the added and cancels for the
 * removed, a deletion cancels for all. `was` and `is` are the guests before and after.
 */
export type GuestNoticeKind = 'invitation' | 'update' | 'cancellation';

export function organizerNotices(
  method: string,
  was: readonly string[],
  is: readonly string[],
): Array<{ kind: GuestNoticeKind; to: string }> {
  const to = (kind: GuestNoticeKind, emails: readonly string[]) =>
    emails.map((email) => ({ kind, to: email }));
  if (method === 'POST') return to('invitation', is);
  if (method === 'DELETE') return to('cancellation', was);
  return [
    ...to(
      'update',
      is.filter((email) => was.includes(email)),
    ),
    ...to(
      'invitation',
      is.filter((email) => !was.includes(email)),
    ),
    ...to(
      'cancellation',
      was.filter((email) => !is.includes(email)),
    ),
  ];
}
