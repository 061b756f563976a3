/**
 * Operations endpoints: liveness, and readiness: 503 while the database does not answer, 200
 * `degraded` (naming what is away) while a part the service can do without is away.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { databaseUnavailable } from '../store/connectionLoss.ts';

export function registerOps(app: FastifyInstance, ctx: AppContext): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    try {
      await ctx.ping();
    } catch (error) {
      throw databaseUnavailable(error);
    }
    const degraded = ctx.degraded?.() ?? [];
    return degraded.length === 0 ? { status: 'ready' } : { status: 'degraded', degraded };
  });
}
