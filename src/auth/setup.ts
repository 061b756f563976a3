/**
 * Assembles the authorization side from the application context: keys, server, verifier, grants.
 * A grant that ends is forgotten here and told to the other instances; told by them, the verifier
 * forgets it, and when the keys change `reloadKeys` takes the new set in.
 */
import type { AppContext } from '../context.ts';
import { isAppError } from '../errors.ts';
import { guardedFetch } from '../lib/guardedFetch.ts';
import { noticeChannels, publishNotice } from '../store/notices.ts';
import {
  type AuthorizationServer,
  createAuthorizationServer,
  type SitePages,
} from './authorizationServer.ts';
import { type BearerVerifier, createBearerVerifier } from './bearer.ts';
import type { GrantBudget } from './grantBudget.ts';
import type { GrantsDeps } from './grants.ts';
import { issuerFor } from './resources.ts';
import { loadSigningKeys } from './signingKeys.ts';

export interface Authorization {
  server: AuthorizationServer;
  verifier: BearerVerifier;
  /** Requests per grant on /mcp and /v1 together. */
  budget: GrantBudget;
  grants: GrantsDeps;
  /** Loads the active signing keys again and signs and verifies with them from now on. */
  reloadKeys(): Promise<void>;
}

export async function startAuthorization(
  ctx: AppContext,
  site: SitePages,
  budget: GrantBudget,
): Promise<Authorization> {
  const load = () => loadSigningKeys(ctx.db, ctx.box, ctx.config.environment, ctx.clock);
  let signingKeys = await load();
  const verifier = createBearerVerifier({
    db: ctx.db,
    clock: ctx.clock,
    issuer: issuerFor(ctx.config.baseUrl),
    environment: ctx.config.environment,
    signingKeys,
  });
  // At once here; the other instances (and this one again) when told.
  const forget = async (grantIds: readonly string[]) => {
    for (const id of grantIds) {
      verifier.forget(id);
      ctx.metrics.grantEnded();
      await publishNotice(ctx.db, noticeChannels.grantEnded, id);
    }
  };
  const server = createAuthorizationServer({
    config: ctx.config,
    db: ctx.db,
    clock: ctx.clock,
    secretKey: ctx.secretKey,
    box: ctx.box,
    signingKeys,
    onGrantEnded: (grantId) => forget([grantId]),
    onTokenIssued: () => ctx.metrics.tokenIssued(),
    site,
    fetch: guardedFetch({ ...ctx.outboundGuard, httpsOnly: ctx.config.environment === 'production' }),
  });

  // One reload at a time, so that an older key set never replaces a newer one.
  let reloading = Promise.resolve();
  const reload = async () => {
    const keys = await load();
    const kids = (set: typeof keys) => set.map((k) => k.kid).join(' ');
    if (kids(keys) === kids(signingKeys)) return;
    signingKeys = keys;
    verifier.useKeys(keys);
    server.useKeys(keys);
  };

  return {
    server,
    verifier,
    budget: {
      async take(grantId) {
        try {
          await budget.take(grantId);
        } catch (error) {
          if (isAppError(error) && error.code === 'rate_limited') ctx.metrics.refused('grant');
          throw error;
        }
      },
    },
    grants: {
      db: ctx.db,
      clock: ctx.clock,
      // Read at each use: the server's provider is replaced when the keys change.
      get provider() {
        return server.provider;
      },
      resources: server.resources,
      forget,
    },
    reloadKeys() {
      reloading = reloading.then(reload, reload);
      return reloading;
    },
  };
}
