/**
 * What a client registration may contain beyond oidc-provider's own checks: redirect URIs over
 * https, or plain http only to this machine (native apps, RFC 8252); bounded sizes; no control
 * characters in any text (client_name is shown on consent and stored with the grant). Pure.
 */
import { hasControlCharacters } from '../lib/text.ts';

export const clientLimits = {
  redirectUris: 10,
  uriLength: 2000,
  nameLength: 120,
  registrationBytes: 16 * 1024,
} as const;

const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why the registration is refused, or undefined when it is acceptable. */
export function registrationProblem(client: {
  redirect_uris?: unknown;
  client_name?: unknown;
}): string | undefined {
  for (const [key, value] of Object.entries(client)) {
    if ([value].flat().some((v) => typeof v === 'string' && hasControlCharacters(v)))
      return `${key} cannot contain control characters.`;
  }
  const uris = client.redirect_uris;
  if (Array.isArray(uris)) {
    if (uris.length > clientLimits.redirectUris)
      return `Register at most ${clientLimits.redirectUris} redirect URIs.`;
    for (const uri of uris) {
      if (typeof uri !== 'string' || uri.length > clientLimits.uriLength) {
        return `Redirect URIs are at most ${clientLimits.uriLength} characters.`;
      }
      const url = URL.parse(uri);
      if (url === null) return `"${uri}" is not a URL.`;
      const local = url.protocol === 'http:' && loopbackHosts.has(url.hostname);
      if (url.protocol !== 'https:' && !local) {
        return 'Redirect URIs must use https, or http to a loopback address (127.0.0.1, [::1], localhost).';
      }
    }
  }
  const name = client.client_name;
  if (typeof name === 'string' && name.length > clientLimits.nameLength) {
    return `client_name is at most ${clientLimits.nameLength} characters.`;
  }
  return undefined;
}
