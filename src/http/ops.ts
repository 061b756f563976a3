/** Operations endpoints: liveness and readiness (the database answers). */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';

export function registerOps(app: FastifyInstance, ctx: AppContext): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    try {
      await ctx.ping();
    } catch (error) {
      throw new AppError('not_ready', 'The database is not reachable.', { cause: error });
    }
    return { status: 'ready' };
  });
}
