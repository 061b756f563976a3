/**
 * A real SMTP server (smtp-server) on loopback for the mail tests: plain SMTP without STARTTLS,
 * AUTH accepted only with the given user and password, every message kept and decoded enough to
 * read its headers and text (quoted-printable or base64 bodies).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope: who the server was told to deliver to. */
  to: string[];
  /** The authenticated user, if any. */
  user: string | undefined;
  headers: Map<string, string>;
  subject: string;
  text: string;
}

export interface TestSmtpServer {
  port: number;
  /** `smtp://user:password@127.0.0.1:port` (or without credentials). */
  url: string;
  received: ReceivedMail[];
  /** The next message not yet taken (one already received, or the next to arrive). */
  next(): Promise<ReceivedMail>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Headers (unfolded, names lower-cased) and the text of a single-part message. */
export function parseMessage(raw: string): { headers: Map<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return { headers, text: text.replace(/\r\n/g, '\n') };
}

export async function startSmtpServer(credentials?: {
  user: string;
  password: string;
}): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const waiting: Array<(mail: ReceivedMail) => void> = [];
  let taken = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: credentials === undefined,
    logger: false,
    onAuth(auth, _session, callback) {
      if (credentials && auth.username === credentials.user && auth.password === credentials.password)
        callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const { headers, text } = parseMessage(Buffer.concat(chunks).toString('utf8'));
        const mail: ReceivedMail = {
          to: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          headers,
          subject: headers.get('subject') ?? '',
          text,
        };
        received.push(mail);
        const waiter = waiting.shift();
        if (waiter) {
          taken += 1;
          waiter(mail);
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const auth = credentials
    ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@`
    : '';
  return {
    port,
    url: `smtp://${auth}127.0.0.1:${port}`,
    received,
    next: () => {
      if (taken < received.length) return Promise.resolve(received[taken++]!);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a message's text that starts with `prefix`. */
export function linkIn(mail: ReceivedMail, prefix: string): string {
  const link = mail.text.split(/\s+/).find((word) => word.startsWith(prefix));
  if (link === undefined) throw new Error(`no link starting with ${prefix} in:\n${mail.text}`);
  return link;
}
