/**
 * Resource-side verification of access tokens, one module for `/mcp` and `/v1`: signature,
 * issuer, exactly this resource as audience, expiry, not issued in the future (beyond a minute
 * of skew), environment, then the live grant (revoked, member removed, client blocked → refused
 * at once; looked up again after at most two seconds) and the scopes the route needs. Failures carry the RFC 6750 / RFC 9728 challenges.
 * A grant ended anywhere is forgotten at once (`forget`, told by every instance on PostgreSQL);
 * the key set is replaced when the keys are rotated (`useKeys`).
 */

import { createLocalJWKSet, type JWTPayload, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import type { Environment } from '../config/config.ts';
import { AppError } from '../errors.ts';
import { type Clock, epochMs } from '../lib/clock.ts';
import type { Principal } from '../policy/principal.ts';
import { clientPermitted, type Scope, type WorkspacePolicy } from '../policy/workspacePolicy.ts';
import { type AccessGrant, findGrant, touchGrant } from '../store/accessGrants.ts';
import type { Database } from '../store/schema.ts';
import { findPolicy, roleOf } from '../store/workspaces.ts';
import type { ProtectedResource } from './resources.ts';
import { type PrivateJwk, signingAlgorithm } from './signingKeys.ts';

export type { Principal };

export interface BearerVerifier {
  authenticate(authorization: string | undefined, resource: ProtectedResource): Promise<Principal>;
  /** Drops a cached grant, so that a revocation takes effect on the next request. */
  forget(grantId: string): void;
  /** Drops every cached grant (when revocations may have been missed). */
  forgetAll(): void;
  /** Verifies with these keys from now on. */
  useKeys(keys: readonly PrivateJwk[]): void;
}

export interface BearerDeps {
  db: Kysely<Database>;
  clock: Clock;
  issuer: string;
  environment: Environment;
  signingKeys: readonly PrivateJwk[];
}

const grantCacheMs = 2000;
/** How far a token's iat may lie ahead of this machine's clock (the issuer's clock may run ahead). */
const futureSkewSeconds = 60;
const lastUseResolutionMs = 60_000;

interface LiveGrant {
  grant: AccessGrant;
  policy: WorkspacePolicy;
}

export function requireScopes(
  principal: Principal,
  resource: ProtectedResource,
  required: readonly Scope[],
): void {
  const missing = required.filter((s) => !principal.scopes.includes(s));
  if (missing.length === 0) return;
  throw new AppError(
    'insufficient_scope',
    `This needs the scope ${missing.join(' ')}, which the grant does not hold.`,
    {
      challenge: `Bearer error="insufficient_scope", scope="${required.join(' ')}", resource_metadata="${resource.metadataUrl}"`,
    },
  );
}

const publicKeySet = (keys: readonly PrivateJwk[]) =>
  createLocalJWKSet({ keys: keys.map(({ d: _private, ...publicPart }) => publicPart) });

export function createBearerVerifier(deps: BearerDeps): BearerVerifier {
  let keySet = publicKeySet(deps.signingKeys);
  /** Counts forgets: a lookup that began before one is not cached (it may have read the grant live). */
  let forgets = 0;
  const cache = new Map<string, { value: LiveGrant | undefined; until: number }>();
  // A client sends the same token for its whole life (minutes): its signature is checked once.
  const verified = new Map<string, JWTPayload>();
  const lastTouched = new Map<string, number>();

  const invalid = (resource: ProtectedResource, message: string) =>
    new AppError('invalid_token', message, {
      challenge: `Bearer error="invalid_token", error_description="${message}", resource_metadata="${resource.metadataUrl}"`,
    });

  async function liveGrant(grantId: string): Promise<LiveGrant | undefined> {
    const now = epochMs(deps.clock);
    const cached = cache.get(grantId);
    if (cached !== undefined && cached.until > now) return cached.value;
    const forgetsBefore = forgets;
    const grant = await findGrant(deps.db, grantId);
    let value: LiveGrant | undefined;
    if (grant !== undefined && grant.revokedAt === null) {
      // Asked together: a person's first read waits for one round trip here, not two.
      const [role, policy] = await Promise.all([
        roleOf(deps.db, grant.workspaceId, grant.userId),
        findPolicy(deps.db, grant.workspaceId),
      ]);
      if (role && policy !== undefined && clientPermitted(policy, grant.clientId)) value = { grant, policy };
    }
    if (forgets !== forgetsBefore) return value;
    if (cache.size > 10_000) cache.clear();
    cache.set(grantId, { value, until: now + grantCacheMs });
    return value;
  }

  /**
   * The last use is shown to people, never needed to answer: the request does not wait for its
   * write (a commit, on PostgreSQL a flush of its log), and a failure (a full disk) fails nothing;
   * it is tried again a minute later.
   */
  function noteUse(grantId: string): void {
    const now = epochMs(deps.clock);
    if ((lastTouched.get(grantId) ?? 0) + lastUseResolutionMs > now) return;
    lastTouched.set(grantId, now);
    touchGrant(deps.db, grantId, now).catch(() => {});
  }

  return {
    forget(grantId) {
      forgets += 1;
      cache.delete(grantId);
    },
    forgetAll() {
      forgets += 1;
      cache.clear();
    },
    useKeys(keys) {
      keySet = publicKeySet(keys);
      // A retired key's tokens are refused from now on, also those already verified.
      verified.clear();
    },

    async authenticate(authorization, resource) {
      const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization ?? '');
      if (match === null) {
        throw new AppError('unauthenticated', 'Send an access token for this resource as a Bearer token.', {
          challenge: `Bearer resource_metadata="${resource.metadataUrl}", scope="${resource.scopes.join(' ')}"`,
        });
      }
      const token = match[1]!;
      const wallSeconds = Temporal.Now.instant().epochMilliseconds / 1000;
      let payload = verified.get(token);
      // jose refuses a future nbf, and checks exp, against the wall clock; a remembered token is
      // held to the same (a future iat jose lets pass: checked below for both).
      if (payload !== undefined && (payload.exp! <= wallSeconds || (payload.nbf ?? 0) > wallSeconds)) {
        verified.delete(token);
        payload = undefined;
      }
      if (payload === undefined) {
        try {
          ({ payload } = await jwtVerify(token, keySet, {
            issuer: deps.issuer,
            algorithms: [signingAlgorithm],
            typ: 'at+jwt',
            requiredClaims: ['exp', 'iat', 'client_id', 'aud'],
          }));
        } catch {
          throw invalid(resource, 'The access token is invalid or has expired.');
        }
        if (verified.size >= 10_000) verified.clear();
        verified.set(token, payload);
      }
      if (payload.iat! > wallSeconds + futureSkewSeconds)
        throw invalid(resource, 'The access token was issued in the future.');
      // Exactly one audience, this one: a token for another resource is not accepted here.
      if (payload.aud !== resource.url) throw invalid(resource, 'The access token is for another resource.');
      if (payload.env !== deps.environment)
        throw invalid(resource, 'The access token is from another environment.');
      const grantId = payload.gid;
      // client_credentials tokens name the client as subject (RFC 9068) and carry no grant.
      if (grantId === undefined && payload.sub === payload.client_id) {
        throw new AppError(
          'forbidden',
          'This token belongs to a client, not a person: it reaches no calendar.',
        );
      }
      const live = typeof grantId === 'string' ? await liveGrant(grantId) : undefined;
      if (
        live === undefined ||
        live.grant.userId !== payload.sub ||
        live.grant.clientId !== payload.client_id
      ) {
        throw invalid(resource, 'The grant behind this token has ended.');
      }
      const tokenScopes = new Set(typeof payload.scope === 'string' ? payload.scope.split(' ') : []);
      const scopes = live.grant.scopes.filter(
        (s) => tokenScopes.has(s) && live.policy.allowedScopes.includes(s) && resource.scopes.includes(s),
      );
      noteUse(live.grant.id);
      return {
        userId: live.grant.userId,
        workspaceId: live.grant.workspaceId,
        clientId: live.grant.clientId,
        grantId: live.grant.id,
        scopes,
        calendars: live.grant.calendars,
        privateDetails: live.grant.privateDetails && live.policy.privateDetailsAllowed,
        policy: live.policy,
      };
    },
  };
}
