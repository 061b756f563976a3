/**
 * A grant stored as consent would store it, and an access token for it signed with the
 * service's own key: for tests of the resources that are not about the authorization flow
 * (which test/auth/ covers end to end).
 */
import { importJWK, SignJWT } from 'jose';
import { issuerFor, protectedResources, type ResourceName } from '../../src/auth/resources.ts';
import { loadSigningKeys } from '../../src/auth/signingKeys.ts';
import type { AppContext } from '../../src/context.ts';
import type { DetailLevel } from '../../src/domain/detailLevels.ts';
import { newId } from '../../src/lib/ids.ts';
import type { Scope } from '../../src/policy/workspacePolicy.ts';
import { insertGrant } from '../../src/store/accessGrants.ts';

export interface GrantSpec {
  userId: string;
  workspaceId: string;
  calendars: Array<{ calendarId: string; detailLevel: DetailLevel }>;
  scopes?: Scope[];
  privateDetails?: boolean;
  resource?: ResourceName;
  clientId?: string;
  /** Seconds from now for the token's iat (default 0) and nbf (absent by default). */
  issuedIn?: number;
  validIn?: number;
}

/** What signing needs of the application's context (a service in another process has no other). */
export type SigningContext = Pick<AppContext, 'db' | 'box' | 'clock'> & {
  config: Pick<AppContext['config'], 'environment' | 'baseUrl'>;
};

export async function grantToken(
  ctx: SigningContext,
  spec: GrantSpec,
): Promise<{ token: string; grantId: string }> {
  const grantId = newId('grt');
  const scopes = spec.scopes ?? ['calendar:read'];
  const clientId = spec.clientId ?? 'test-client';
  await insertGrant(ctx.db, {
    id: grantId,
    userId: spec.userId,
    workspaceId: spec.workspaceId,
    clientId,
    clientName: 'Test client',
    scopes,
    privateDetails: spec.privateDetails ?? false,
    calendars: spec.calendars,
    createdAt: 0,
  });
  const [key] = await loadSigningKeys(ctx.db, ctx.box, ctx.config.environment, ctx.clock);
  const now = Math.floor(Temporal.Now.instant().epochMilliseconds / 1000);
  const jwt = new SignJWT({
    sub: spec.userId,
    client_id: clientId,
    scope: scopes.join(' '),
    env: ctx.config.environment,
    gid: grantId,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key!.kid })
    .setIssuer(issuerFor(ctx.config.baseUrl))
    .setAudience(protectedResources(ctx.config.baseUrl)[spec.resource ?? 'mcp'].url)
    .setIssuedAt(now + (spec.issuedIn ?? 0))
    .setExpirationTime(now + 3600);
  if (spec.validIn !== undefined) jwt.setNotBefore(now + spec.validIn);
  const token = await jwt.sign(await importJWK(key!, 'ES256'));
  return { token, grantId };
}
