/**
 * Authenticated WebDAV requests to one CalDAV account, with the errors they mean. The same
 * answer means different things at connect time (the person typed something wrong:
 * invalid_request naming the field) and later (a stored account broke: reconnect_required).
 */
import { AppError, invalidField } from '../../errors.ts';
import type { ProviderHttp } from '../providerHttp.ts';
import { requestFollowingRedirects } from '../redirects.ts';
import { type DavResponse, type PropName, parseMultistatus, propfindBody } from './wire.ts';

export interface DavSession {
  http: ProviderHttp;
  accountKey: string;
  username: string;
  password: string;
  mode: 'connect' | 'account';
}

export interface DavAnswer {
  /** Where the answer came from, after redirects. */
  url: URL;
  status: number;
  headers: Headers;
  body: string;
}

const provider = 'CalDAV server';
const maxRedirects = 5;

/** Same origin, or the same host upgraded to https: credentials never travel elsewhere. */
function checkRedirect(session: DavSession, next: URL, from: URL | undefined): void {
  if (from === undefined || next.origin === from.origin) return;
  if (from.protocol === 'http:' && next.protocol === 'https:' && next.hostname === from.hostname) return;
  throw fail(session, 'serverUrl', `The CalDAV server redirected to another host (${next.host}).`);
}

/** A problem with the server itself: the person's input at connect time, a provider fault later. */
export function fail(session: DavSession, field: string, message: string, status?: number): AppError {
  return session.mode === 'connect'
    ? invalidField(field, message)
    : new AppError('provider_unavailable', message, { details: { reason: 'unexpected_answer', status } });
}

export interface DavRequest {
  method: string;
  url: URL;
  depth?: '0' | '1';
  body?: string;
  accept?: string;
  /** Default `application/xml`; iCalendar objects are `text/calendar`. */
  contentType?: string;
  /** Preconditions (If-Match, If-None-Match). */
  headers?: Record<string, string>;
  /** Reads are (retried on failure); writes are not, and are sent once. Default true. */
  idempotent?: boolean;
}

export async function davRequest(session: DavSession, request: DavRequest): Promise<DavAnswer> {
  const credentials = Buffer.from(`${session.username}:${session.password}`, 'utf8').toString('base64');
  const headers: Record<string, string> = {
    authorization: `Basic ${credentials}`,
    accept: request.accept ?? 'application/xml, text/xml',
    ...request.headers,
  };
  if (request.depth !== undefined) headers.depth = request.depth;
  if (request.body !== undefined) {
    headers['content-type'] = request.contentType ?? 'application/xml; charset=utf-8';
  }
  const { response, url } = await requestFollowingRedirects(
    session.http,
    {
      url: request.url.href,
      method: request.method,
      headers,
      body: request.body,
      idempotent: request.idempotent ?? true,
      accountKey: session.accountKey,
      provider,
    },
    {
      max: maxRedirects,
      check: (next, from) => checkRedirect(session, next, from),
      tooMany: () => fail(session, 'serverUrl', 'The CalDAV server redirected too many times.'),
    },
  );
  if (response.status === 401) {
    await response.body?.cancel();
    throw session.mode === 'connect'
      ? invalidField('password', 'The CalDAV server did not accept this username and password.')
      : new AppError(
          'reconnect_required',
          'The CalDAV server no longer accepts the stored password; reconnect the account.',
        );
  }
  return { url, status: response.status, headers: response.headers, body: await response.text() };
}

/** An answer the caller cannot use: gone (404/410/403 → not_found later on), or not CalDAV at all. */
export function unexpectedAnswer(session: DavSession, answer: DavAnswer, what: string): AppError {
  if (session.mode === 'account' && [403, 404, 410].includes(answer.status)) {
    return new AppError('not_found', `The CalDAV server no longer offers ${what} (HTTP ${answer.status}).`);
  }
  return fail(
    session,
    'serverUrl',
    `The server at ${answer.url.host} did not answer as a CalDAV server for ${what} (HTTP ${answer.status}).`,
    answer.status,
  );
}

/** A 207 answer's responses, or the error its absence means. */
export function multistatus(session: DavSession, answer: DavAnswer, what: string): DavResponse[] {
  if (answer.status !== 207) throw unexpectedAnswer(session, answer, what);
  try {
    return parseMultistatus(answer.body);
  } catch (error) {
    throw fail(
      session,
      'serverUrl',
      `The server's answer for ${what} is not WebDAV XML: ${(error as Error).message}`,
    );
  }
}

export async function propfind(
  session: DavSession,
  url: URL,
  depth: '0' | '1',
  props: readonly PropName[],
  what: string,
): Promise<{ url: URL; responses: DavResponse[] }> {
  const answer = await davRequest(session, { method: 'PROPFIND', url, depth, body: propfindBody(props) });
  return { url: answer.url, responses: multistatus(session, answer, what) };
}
