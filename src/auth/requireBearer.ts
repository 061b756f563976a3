/** The Fastify face of bearer verification: a pre-handler that sets `request.principal`. */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Scope } from '../policy/workspacePolicy.ts';
import { type BearerVerifier, type Principal, requireScopes } from './bearer.ts';
import type { ProtectedResource } from './resources.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

export function requireBearer(
  verifier: BearerVerifier,
  resource: ProtectedResource,
  scopes: readonly Scope[],
): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const principal = await verifier.authenticate(request.headers.authorization, resource);
    requireScopes(principal, resource, scopes);
    request.principal = principal;
  };
}
