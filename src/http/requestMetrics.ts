/** Every answered request counted and timed by its route pattern (never the raw URL: no ids or tokens in labels). */
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../lib/metrics.ts';

export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequest(
      {
        method: request.method,
        // Unknown paths share one label, whatever was asked for.
        route: request.routeOptions.url ?? 'unmatched',
        statusCode: reply.statusCode,
      },
      reply.elapsedTime / 1000,
    );
  });
}
