/**
 * Redirects for provider requests: ProviderHttp never follows them (redirect: 'manual'), so the
 * adapters do, checking every hop with their own rule before it is requested.
 */
import type { AppError } from '../errors.ts';
import type { ProviderHttp, ProviderRequest } from './providerHttp.ts';

export interface RedirectRules {
  max: number;
  /** Throws when `next` may not be requested (another host, a private address…). */
  check(next: URL, from: URL | undefined): void | Promise<void>;
  tooMany(): AppError;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** The first non-redirect answer and the URL that gave it. */
export async function requestFollowingRedirects(
  http: ProviderHttp,
  request: ProviderRequest,
  rules: RedirectRules,
): Promise<{ response: Response; url: URL }> {
  let url = new URL(request.url);
  let from: URL | undefined;
  for (let hops = 0; ; hops++) {
    await rules.check(url, from);
    const response = await http.request({ ...request, url: url.href });
    const location = response.headers.get('location');
    const next = location === null ? null : URL.parse(location, url);
    if (!redirectStatuses.has(response.status) || next === null) return { response, url };
    await response.body?.cancel();
    if (hops >= rules.max) throw rules.tooMany();
    next.hash = '';
    from = url;
    url = next;
  }
}
