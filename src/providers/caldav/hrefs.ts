/**
 * Where a server's href points, decided before any credentials follow it: the same server, a
 * member of the collection, or neither. Pure, so the expansion pool's workers use it too.
 */

/** Same origin, or the same host upgraded to https: credentials never travel elsewhere. */
export const sameServer = (next: URL, from: URL): boolean =>
  next.origin === from.origin ||
  (from.protocol === 'http:' && next.protocol === 'https:' && next.hostname === from.hostname);

/** A member's key: its href resolved against the collection, without credentials, query or fragment. */
export const memberKey = (url: URL): string => `${url.origin}${url.pathname}`;

/** The href as a member of the collection: 'self' for the collection, undefined outside it. */
export function memberUrl(collection: URL, base: URL, href: string): URL | 'self' | undefined {
  const url = URL.parse(href, base);
  if (url === null || url.origin !== collection.origin) return undefined;
  if (url.pathname === collection.pathname) return 'self';
  return url.pathname.startsWith(collection.pathname) ? url : undefined;
}
