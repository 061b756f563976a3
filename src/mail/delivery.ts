/** Sending with a bound on the wait, and what of a failure may be logged. */
import { waitAtMost } from '../lib/waitAtMost.ts';
import type { Mailer, MailMessage } from './mailer.ts';

/** How long a page waits for the mail server before it shows the link instead. */
export const mailWaitMs = 15_000;

/**
 * What a failed send may log: the kind of failure and the server's reply code, never the
 * message, its link, the addresses or the server's words (which can repeat them).
 */
export function mailFailure(error: unknown): { code?: string; responseCode?: number; command?: string } {
  const e = (error ?? {}) as { code?: unknown; responseCode?: unknown; command?: unknown };
  return {
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.responseCode === 'number' ? { responseCode: e.responseCode } : {}),
    ...(typeof e.command === 'string' ? { command: e.command } : {}),
  };
}

export type MailFailure = ReturnType<typeof mailFailure>;

/** True once the server accepted the message; false on failure (handed to `onFailure`) or past `mailWaitMs`. */
export async function sendWithin(
  mailer: Mailer,
  message: MailMessage,
  onFailure: (failure: MailFailure) => void,
): Promise<boolean> {
  const sent = mailer.send(message).then(
    () => true,
    (error: unknown) => {
      onFailure(mailFailure(error));
      return false;
    },
  );
  const outcome = await waitAtMost(sent, mailWaitMs);
  if (outcome === undefined) onFailure({ code: 'timeout' });
  return outcome ?? false;
}
