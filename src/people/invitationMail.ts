/**
 * The invitation e-mail, one flow for the admin page and the CLI: the message in words, sent
 * within the bound of mail/delivery.ts, a failure told without its content.
 */
import { sendWithin } from '../mail/delivery.ts';
import { invitationMessage } from '../mail/messages.ts';
import type { AdministrationDeps } from './administrationPorts.ts';

export interface InvitationToSend {
  email: string;
  workspaceName: string;
  role: string;
  /** Who invited, as the invitee would know them; absent when the operator did. */
  inviter: string | undefined;
  baseUrl: string;
  link: string;
  expiresAt: number;
  validForMs: number;
}

/** Whether the server took the invitation; undefined where no mail is sent. */
export async function mailInvitation(
  deps: Pick<AdministrationDeps, 'mailer' | 'onMailFailure'>,
  invitation: InvitationToSend,
): Promise<boolean | undefined> {
  if (deps.mailer === undefined) return undefined;
  return sendWithin(
    deps.mailer,
    invitationMessage({ ...invitation, to: invitation.email }),
    deps.onMailFailure,
  );
}
