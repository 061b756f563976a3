/** Answers in Graph's and the identity platform's wire formats, built first and sent in one place. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface Reply {
  status: number;
  /** JSON body; none for redirects. */
  body?: unknown;
  headers?: Record<string, string>;
}

export function send(res: ServerResponse, reply: Reply): void {
  // A client that timed out has gone; there is nobody to answer.
  if (res.destroyed) return;
  if (reply.body === undefined) {
    res.writeHead(reply.status, reply.headers).end();
    return;
  }
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
  res.end(JSON.stringify(reply.body));
}

export const json = (body: unknown, headers?: Record<string, string>): Reply => ({
  status: 200,
  body,
  headers,
});

/** Graph's error body: `{"error":{"code":…,"message":…,"innerError":{…}}}`. */
export const graphError = (
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
): Reply => ({
  status,
  body: {
    error: {
      code,
      message,
      innerError: { date: Temporal.Now.instant().toString(), 'request-id': crypto.randomUUID() },
    },
  },
  headers,
});

/** A 400 as Graph answers a request it cannot accept. */
export const badRequest = (message: string): Reply => graphError(400, 'ErrorInvalidRequest', message);

/** The identity platform's OAuth error body. */
export const oauthError = (status: number, error: string, description: string): Reply => ({
  status,
  body: { error, error_description: description, error_codes: [] },
});

export const redirect = (location: URL): Reply => ({
  status: 302,
  headers: { location: location.toString() },
});

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
