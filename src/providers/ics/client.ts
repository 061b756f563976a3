/**
 * Reading an iCalendar subscription: conditional GET against an in-memory cache (a 304 reuses the
 * last body) or with the validators a sync kept, redirects followed by hand with the SSRF guard
 * on every hop, the body streamed and cut off beyond a size limit, and anything that is not an
 * iCalendar object refused.
 */
import { AppError, invalidField } from '../../errors.ts';
import { assertPublicHost } from '../../lib/networkGuard.ts';
import { readBounded } from '../boundedBody.ts';
import type { ProviderHttp } from '../providerHttp.ts';
import { requestFollowingRedirects } from '../redirects.ts';

export interface FeedReaderOptions {
  http: ProviderHttp;
  maxBytes: number;
  allowPrivateNetworks: boolean;
  /** Bytes of feed bodies kept for conditional requests; the oldest are dropped first. */
  cacheBytes?: number;
}

/** What names one version of a feed for conditional requests (RFC 9110 §13.1). */
export interface FeedValidators {
  etag?: string;
  lastModified?: string;
}

/** A feed's text and the validators of that version. */
export interface FeedVersion {
  body: string;
  validators: FeedValidators;
}

interface Cached extends FeedVersion {
  bytes: number;
}

const maxRedirects = 5;
const provider = 'The calendar feed';

/** `webcal://` and `webcals://` are how calendar apps spell https subscriptions. */
export function normalizeFeedUrl(input: string): URL {
  const url = URL.parse(input.trim().replace(/^webcals?:\/\//i, 'https://'));
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw invalidField('url', 'Enter the calendar feed as an https://, http:// or webcal:// address.');
  }
  if (url.username !== '' || url.password !== '') {
    throw invalidField('url', 'Feed addresses with a username or password in them are not supported.');
  }
  url.hash = '';
  return url;
}

/** The feed's own fault, named by a reason the read service passes on; `url` for the form that took it. */
export const feedFault = (reason: 'not_calendar_data' | 'cut_off' | 'too_many_redirects', message: string) =>
  new AppError('invalid_request', message, { details: { field: 'url', reason } });

/** A whole iCalendar object, or the reason it is not one. */
function assertIcalendar(body: string, contentType: string | null): void {
  const start = body.trimStart();
  if (!/^BEGIN:VCALENDAR[ \t]*(\r?\n|$)/i.test(start)) {
    const shown = JSON.stringify(start.slice(0, 40));
    throw feedFault(
      'not_calendar_data',
      `The address does not serve an iCalendar feed (${contentType ?? 'no type'}, starts ${shown}).`,
    );
  }
  if (!/^END:VCALENDAR[ \t]*$/im.test(start)) {
    throw feedFault('cut_off', 'The calendar feed is cut short or malformed: it has no END:VCALENDAR.');
  }
}

export function createFeedReader(options: FeedReaderOptions) {
  const cacheBytes = options.cacheBytes ?? 64 * 1024 * 1024;
  const cache = new Map<string, Cached>();
  let cachedBytes = 0;

  function remember(key: string, entry: Cached): void {
    forget(key);
    if (entry.bytes > cacheBytes) return;
    cache.set(key, entry);
    cachedBytes += entry.bytes;
    for (const [oldest, old] of cache) {
      if (cachedBytes <= cacheBytes) break;
      cache.delete(oldest);
      cachedBytes -= old.bytes;
    }
  }
  function forget(key: string): void {
    const old = cache.get(key);
    if (old === undefined) return;
    cache.delete(key);
    cachedBytes -= old.bytes;
  }

  async function checkHop(next: URL): Promise<void> {
    if (next.protocol !== 'https:' && next.protocol !== 'http:') {
      throw invalidField('url', `The calendar feed redirected to an unsupported address (${next.protocol}).`);
    }
    if (!options.allowPrivateNetworks) await assertPublicHost(next, 'ICS_ALLOW_PRIVATE_NETWORKS');
  }

  /**
   * The feed as the server has it now, or undefined on 304 Not Modified: only possible when
   * `validators` name a version, and then that version is still current.
   */
  async function readChanged(
    feedUrl: URL,
    accountKey: string,
    validators: FeedValidators,
  ): Promise<FeedVersion | undefined> {
    const key = feedUrl.href;
    const headers: Record<string, string> = { accept: 'text/calendar, text/plain;q=0.5, */*;q=0.1' };
    if (validators.etag) headers['if-none-match'] = validators.etag;
    if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
    const { response } = await requestFollowingRedirects(
      options.http,
      { url: key, headers, idempotent: true, accountKey, provider },
      {
        max: maxRedirects,
        check: checkHop,
        tooMany: () =>
          feedFault('too_many_redirects', `The calendar feed redirected more than ${maxRedirects} times.`),
      },
    );
    const conditional = validators.etag !== undefined || validators.lastModified !== undefined;
    if (response.status === 304 && conditional) return undefined;
    if (response.status !== 200) {
      await response.body?.cancel();
      throw statusError(response.status);
    }
    const bytes = await readBounded(response, { maxBytes: options.maxBytes, what: provider });
    const body = new TextDecoder().decode(bytes);
    assertIcalendar(body, response.headers.get('content-type'));
    const etag = response.headers.get('etag') ?? undefined;
    const lastModified = response.headers.get('last-modified') ?? undefined;
    const version: Cached = { body, validators: { etag, lastModified }, bytes: bytes.byteLength };
    // Whoever asks next (a read or a sync) can then ask conditionally.
    if (etag !== undefined || lastModified !== undefined) remember(key, version);
    else forget(key);
    return version;
  }

  /** The feed's text, from the network or (on 304 Not Modified) from the cache. */
  async function read(feedUrl: URL, accountKey: string): Promise<string> {
    const cached = cache.get(feedUrl.href);
    const fresh = await readChanged(feedUrl, accountKey, cached?.validators ?? {});
    if (fresh !== undefined) return fresh.body;
    remember(feedUrl.href, cached!); // most recently used
    return cached!.body;
  }

  return { read, readChanged };
}

export type FeedReader = ReturnType<typeof createFeedReader>;

function statusError(status: number): AppError {
  if (status === 404 || status === 410) {
    return new AppError('not_found', `${provider} no longer exists at this address (HTTP ${status}).`);
  }
  if (status === 401 || status === 403) {
    return new AppError(
      'reconnect_required',
      `${provider} refused access (HTTP ${status}); subscribe again with a current address.`,
    );
  }
  return new AppError('provider_unavailable', `${provider} answered HTTP ${status}.`, {
    details: { reason: 'unexpected_answer', status },
  });
}
