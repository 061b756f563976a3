/** The Mailer over SMTP (nodemailer), for `SMTP_URL`. */
import { createTransport } from 'nodemailer';
import type { MailConfig } from '../config/config.ts';
import type { Mailer } from './mailer.ts';

// A mail server that does not answer must not hold a page for long.
const timeouts = { connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 };

export function createSmtpMailer(config: MailConfig): Mailer {
  const url = new URL(config.smtpUrl);
  const secure = url.protocol === 'smtps:';
  const transport = createTransport({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    ...(url.username === ''
      ? {}
      : { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    ...timeouts,
    // nodemailer's own logging stays off: it would write addresses and message content.
    logger: false,
    debug: false,
  });
  return {
    send: async (message) => {
      await transport.sendMail({ from: config.from, ...message });
    },
    close: () => transport.close(),
  };
}
