/**
 * The Fastify face of bearer verification: a pre-handler that sets `request.principal`, after
 * the route's scopes and the grant's request budget are checked.
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Scope } from '../policy/workspacePolicy.ts';
import { type Principal, requireScopes } from './bearer.ts';
import type { ProtectedResource } from './resources.ts';
import type { Authorization } from './setup.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

export function requireBearer(
  auth: Pick<Authorization, 'verifier' | 'budget'>,
  resource: ProtectedResource,
  scopes: readonly Scope[],
): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const principal = await auth.verifier.authenticate(request.headers.authorization, resource);
    requireScopes(principal, resource, scopes);
    await auth.budget.take(principal.grantId);
    request.principal = principal;
  };
}
