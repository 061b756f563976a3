/** The e-mails the service sends: plain text naming the service, the link and until when it works. */
import type { MailMessage } from './mailer.ts';

const service = 'Calendar Access';

/** `2026-03-29 01:00 UTC` */
const utcMinute = (ms: number): string =>
  `${Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO('UTC').toPlainDateTime().toString({ smallestUnit: 'minute' }).replace('T', ' ')} UTC`;

/** `7 days`, `30 minutes`: a link's lifetime in the largest whole unit. */
function lifetime(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  const [size, unit] = units.find(([size]) => ms % size === 0) ?? [60_000, 'minute'];
  const n = Math.round(ms / size);
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

const validity = (link: { expiresAt: number; validForMs: number }) =>
  `It works once, until ${utcMinute(link.expiresAt)} (${lifetime(link.validForMs)}).`;

export interface InvitationMail {
  to: string;
  workspaceName: string;
  role: string;
  /** Who invited, as the invitee would know them; absent when the operator did. */
  inviter?: string | undefined;
  baseUrl: string;
  link: string;
  expiresAt: number;
  /** The lifetime of such links, said in words. */
  validForMs: number;
}

export function invitationMessage(mail: InvitationMail): MailMessage {
  return {
    to: mail.to,
    subject: `Invitation to join ${mail.workspaceName} on ${service}`,
    text: [
      'Hello,',
      '',
      `${mail.inviter ?? 'An administrator'} invited you to join the workspace "${mail.workspaceName}" as ${mail.role} on ${service} (${mail.baseUrl}), where you choose which assistants may see your calendars.`,
      '',
      'To accept, open this link and choose your name and password:',
      '',
      mail.link,
      '',
      validity(mail),
      'If you did not expect this invitation, ignore this e-mail.',
      '',
    ].join('\n'),
  };
}

export interface PasswordResetMail {
  to: string;
  baseUrl: string;
  link: string;
  expiresAt: number;
  /** The lifetime of such links, said in words. */
  validForMs: number;
}

export function passwordResetMessage(mail: PasswordResetMail): MailMessage {
  return {
    to: mail.to,
    subject: `Reset your ${service} password`,
    text: [
      'Hello,',
      '',
      `Someone asked to reset the password of the ${service} account for ${mail.to} (${mail.baseUrl}).`,
      '',
      'To choose a new password, open this link:',
      '',
      mail.link,
      '',
      validity(mail),
      'Choosing a new password signs you out everywhere.',
      '',
      'If you did not ask for this, ignore this e-mail: your password stays as it is.',
      '',
    ].join('\n'),
  };
}
