/** The read-only REST interface under `/v1`, behind bearer verification. */
import type { FastifyInstance } from 'fastify';
import { requireBearer } from '../auth/requireBearer.ts';
import type { Authorization } from '../auth/setup.ts';
import type { AppContext } from '../http/context.ts';
import { grantedCalendars } from './calendars.ts';

export function registerRestRoutes(app: FastifyInstance, ctx: AppContext, auth: Authorization): void {
  const v1 = auth.server.resources.v1;
  app.get(
    '/v1/calendars',
    { preHandler: requireBearer(auth.verifier, v1, ['calendar:read']) },
    async (request) => grantedCalendars(ctx.db, request.principal),
  );
}
