/** Assembles the authorization side from the application context: keys, server, verifier, grants. */
import type { AppContext } from '../context.ts';
import { isAppError } from '../errors.ts';
import { guardedFetch } from '../lib/guardedFetch.ts';
import {
  type AuthorizationServer,
  createAuthorizationServer,
  type SitePages,
} from './authorizationServer.ts';
import { type BearerVerifier, createBearerVerifier } from './bearer.ts';
import { createGrantLimiter, type GrantLimiter } from './grantLimiter.ts';
import type { GrantsDeps } from './grants.ts';
import { issuerFor } from './resources.ts';
import { loadSigningKeys } from './signingKeys.ts';

export interface Authorization {
  server: AuthorizationServer;
  verifier: BearerVerifier;
  /** Requests per grant on /mcp and /v1 together. */
  limiter: GrantLimiter;
  grants: GrantsDeps;
}

export async function startAuthorization(ctx: AppContext, site: SitePages): Promise<Authorization> {
  const signingKeys = await loadSigningKeys(ctx.db, ctx.box, ctx.config.environment, ctx.clock);
  const verifier = createBearerVerifier({
    db: ctx.db,
    clock: ctx.clock,
    issuer: issuerFor(ctx.config.baseUrl),
    environment: ctx.config.environment,
    signingKeys,
  });
  const grantEnded = (grantId: string) => {
    verifier.forget(grantId);
    ctx.metrics.grantEnded();
  };
  const server = createAuthorizationServer({
    config: ctx.config,
    db: ctx.db,
    clock: ctx.clock,
    secretKey: ctx.secretKey,
    box: ctx.box,
    signingKeys,
    onGrantEnded: grantEnded,
    site,
    fetch: guardedFetch({ ...ctx.outboundGuard, httpsOnly: ctx.config.environment === 'production' }),
  });
  // JWT access tokens are not stored: oidc-provider tells of each one it issues.
  server.provider.on('access_token.issued', () => ctx.metrics.tokenIssued());
  const budget = createGrantLimiter(ctx.clock, ctx.config.grantRequestsPerMinute);
  return {
    server,
    verifier,
    limiter: {
      take(grantId) {
        try {
          budget.take(grantId);
        } catch (error) {
          if (isAppError(error) && error.code === 'rate_limited') ctx.metrics.refused('grant');
          throw error;
        }
      },
    },
    grants: {
      db: ctx.db,
      clock: ctx.clock,
      provider: server.provider,
      resources: server.resources,
      forget: grantEnded,
    },
  };
}
