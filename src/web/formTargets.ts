/**
 * Browsers apply CSP `form-action` to every redirect that follows a form submission. A form on
 * the sign-in or consent page of an authorization request ends, through redirects, at the
 * client's registered redirect URI; that one origin (and only it) is added for such pages.
 */
import type { FastifyReply } from 'fastify';
import type Provider from 'oidc-provider';

export function allowFormTarget(reply: FastifyReply, origin: string | undefined): void {
  if (origin === undefined) return;
  const csp = reply.getHeader('content-security-policy');
  if (typeof csp !== 'string') return;
  reply.header('content-security-policy', csp.replace("form-action 'self'", `form-action 'self' ${origin}`));
}

/** The redirect URI origin of a pending authorization request (already verified as registered). */
export async function redirectOriginOf(provider: Provider, uid: string): Promise<string | undefined> {
  const interaction = await provider.Interaction.find(uid);
  const uri = interaction?.params.redirect_uri;
  return typeof uri === 'string' ? (URL.parse(uri)?.origin ?? undefined) : undefined;
}

/** For `/login?next=/authorize/{uid}`: the origin the sign-in may end at. */
export async function redirectOriginAfterSignIn(
  provider: Provider,
  next: string,
): Promise<string | undefined> {
  const uid = /^\/authorize\/([\w-]{1,64})$/.exec(next)?.[1];
  return uid === undefined ? undefined : redirectOriginOf(provider, uid);
}
