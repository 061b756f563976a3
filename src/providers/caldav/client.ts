/**
 * Authenticated WebDAV requests to one CalDAV account, with the errors they mean. The same
 * answer means different things at connect time (the person typed something wrong:
 * invalid_request naming the field) and later (a stored account broke: reconnect_required).
 * The credentials go to the server's own origin only (redirects and hrefs alike), to public
 * addresses only unless private networks are allowed, and every answer is read within a limit.
 */
import { AppError, invalidField, isAppError } from '../../errors.ts';
import { assertPublicHost } from '../../lib/networkGuard.ts';
import { readBounded } from '../boundedBody.ts';
import type { ReportAnswer, ReportRequest } from '../expansionJobs.ts';
import type { ExpansionPool } from '../expansionPool.ts';
import type { ProviderHttp } from '../providerHttp.ts';
import { requestFollowingRedirects } from '../redirects.ts';
import { sameServer } from './hrefs.ts';
import { type DavResponse, type PropName, parseMultistatus, propfindBody } from './wire.ts';

export interface DavSession {
  http: ProviderHttp;
  accountKey: string;
  username: string;
  password: string;
  mode: 'connect' | 'account';
  /** Self-hosted servers on private, loopback and link-local addresses may be reached. */
  allowPrivateNetworks: boolean;
}

export interface DavAnswer {
  /** Where the answer came from, after redirects. */
  url: URL;
  status: number;
  headers: Headers;
  /** As received. A 207 read in the expansion pool moves them there: the answer is spent after. */
  bytes: Uint8Array;
  /** The bytes as UTF-8 text, decoded when first asked for. */
  readonly body: string;
}

const provider = 'CalDAV server';
const maxRedirects = 5;

/**
 * Largest answers read. A calendar-query REPORT carries whole objects (servers such as Radicale
 * ignore `expand`, so a series comes with all its exceptions): a busy month is a few MiB, and
 * 16 MiB leaves room for long-lived series. Everything else (PROPFIND of a principal or a home
 * of some hundred calendars, GET of one object) is far smaller than 4 MiB.
 */
export const answerLimits = { report: 16 * 1024 * 1024, other: 4 * 1024 * 1024 };

/** Every address requested: the one typed, each redirect hop, each href followed. */
async function checkHop(session: DavSession, next: URL, from: URL | undefined): Promise<void> {
  if (from !== undefined && !sameServer(next, from)) {
    throw fail(session, 'serverUrl', `The CalDAV server redirected to another host (${next.host}).`);
  }
  if (session.allowPrivateNetworks) return;
  try {
    await assertPublicHost(next, 'CALDAV_ALLOW_PRIVATE_NETWORKS');
  } catch (error) {
    if (!(isAppError(error) && error.code === 'invalid_request')) throw error;
    const details = { reason: 'private_address' } as const;
    throw session.mode === 'connect'
      ? new AppError('invalid_request', error.message, { details: { field: 'serverUrl', ...details } })
      : new AppError('provider_unavailable', error.message, { details });
  }
}

/**
 * An href from an answer of `base` (principal, calendar home, calendar, object) as a URL to request
 * with the account's credentials: only on the same server, never on another origin.
 */
export function hrefUrl(session: DavSession, href: string, base: URL, what: string): URL {
  const url = URL.parse(href, base);
  if (url !== null && sameServer(url, base)) return url;
  const message = `The CalDAV server named ${what} on another server (${url?.host ?? href}); the account's password is not sent there.`;
  throw session.mode === 'connect'
    ? new AppError('invalid_request', message, { details: { field: 'serverUrl', reason: 'other_origin' } })
    : new AppError('provider_unavailable', message, { details: { reason: 'other_origin' } });
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
  /** What is asked for, in messages: "the calendar", "the event". */
  what: string;
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
      check: (next, from) => checkHop(session, next, from),
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
  const bytes = await readBounded(response, {
    maxBytes: request.method === 'REPORT' ? answerLimits.report : answerLimits.other,
    what: `The CalDAV server's answer for ${request.what} (${url.pathname})`,
  });
  let text: string | undefined;
  return {
    url,
    status: response.status,
    headers: response.headers,
    bytes,
    get body() {
      text ??= new TextDecoder().decode(bytes);
      return text;
    },
  };
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
export const multistatus = (session: DavSession, answer: DavAnswer, what: string): DavResponse[] =>
  readMultistatus(session, answer, what, parseMultistatus);

/** A 207 answer read by `parse`, or the error its absence means. */
function readMultistatus<T>(
  session: DavSession,
  answer: DavAnswer,
  what: string,
  parse: (xml: string) => T,
): T {
  if (answer.status !== 207) throw unexpectedAnswer(session, answer, what);
  try {
    return parse(answer.body);
  } catch (error) {
    throw fail(
      session,
      'serverUrl',
      `The server's answer for ${what} is not WebDAV XML: ${(error as Error).message}`,
    );
  }
}

/** A 207 answer read in the expansion pool (megabytes of XML, off the request thread), or the error its absence means. */
async function readInPool<T extends object>(
  session: DavSession,
  answer: DavAnswer,
  what: string,
  read: (xml: Uint8Array) => Promise<T | { error: string }>,
): Promise<T> {
  if (answer.status !== 207) throw unexpectedAnswer(session, answer, what);
  const result = await read(answer.bytes);
  if ('error' in result)
    throw fail(session, 'serverUrl', `The server's answer for ${what} is not WebDAV XML: ${result.error}`);
  return result;
}

/** A sync-collection answer: the members it lists and the collection's new token. */
export const readSyncCollectionInPool = (
  pool: ExpansionPool,
  session: DavSession,
  answer: DavAnswer,
  what: string,
): Promise<{ responses: DavResponse[]; token?: string }> =>
  readInPool(session, answer, what, (xml) => pool.syncCollection(session.accountKey, xml));

/** A REPORT answer of calendar objects: read and expanded in one pool job; hrefs resolve against where it came from. */
export const readReportInPool = (
  pool: ExpansionPool,
  session: DavSession,
  answer: DavAnswer,
  what: string,
  request: Omit<ReportRequest, 'base'>,
): Promise<Exclude<ReportAnswer, { error: string }>> =>
  readInPool(session, answer, what, (xml) =>
    pool.report(session.accountKey, xml, { ...request, base: answer.url.href }),
  );

export async function propfind(
  session: DavSession,
  url: URL,
  depth: '0' | '1',
  props: readonly PropName[],
  what: string,
): Promise<{ url: URL; responses: DavResponse[] }> {
  const answer = await davRequest(session, {
    method: 'PROPFIND',
    url,
    depth,
    body: propfindBody(props),
    what,
  });
  return { url: answer.url, responses: multistatus(session, answer, what) };
}
