/**
 * The signed-in mailbox's address per account, from `/me` (which listing the calendars asks
 * anyway): it marks the user among an event's guests, and is the organizer of what they invite
 * to. Learnt once per process and account; a failed lookup is asked again next time.
 */
import type { GraphClient } from './client.ts';
import type { MicrosoftAccount } from './session.ts';
import type { GraphUser } from './wire.ts';

export interface Mailboxes {
  addressOf(account: MicrosoftAccount): Promise<string | undefined>;
  /** Records what a `/me` answer (asked with `meFields`) says. */
  remember(account: MicrosoftAccount, me: GraphUser): string | undefined;
}

export const meFields = 'id,mail,userPrincipalName';
const maxRemembered = 10_000;

export function createMailboxes(client: GraphClient): Mailboxes {
  const known = new Map<string, string | undefined>();
  const remember = (account: MicrosoftAccount, me: GraphUser) => {
    const address = me.mail ?? me.userPrincipalName ?? undefined;
    if (known.size >= maxRemembered) known.delete(known.keys().next().value!);
    known.set(account.accountKey, address);
    return address;
  };
  return {
    remember,
    async addressOf(account) {
      if (known.has(account.accountKey)) return known.get(account.accountKey);
      return remember(account, await client.get<GraphUser>(account, '/me', { $select: meFields }));
    },
  };
}
