/**
 * `GET /metrics` in the Prometheus text format, for those the configuration names: bearers of
 * `METRICS_TOKEN` (compared in constant time), and/or anyone reaching `METRICS_LISTEN`, a listener
 * of its own that serves nothing else. With neither, no route exists: 404, like any unknown path.
 */
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { constantTimeEqual, tokenHash } from '../lib/secrets.ts';
import { registerErrorHandling } from './errorHandling.ts';

const challenge = 'Bearer realm="metrics"';

function checkToken(request: FastifyRequest, token: string): void {
  const sent = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (sent === undefined)
    throw new AppError('unauthenticated', 'Send the metrics token as a Bearer token.', { challenge });
  // Hashes have one length: the comparison tells nothing of the token's.
  if (!constantTimeEqual(tokenHash(sent), tokenHash(token)))
    throw new AppError('invalid_token', 'This is not the metrics token.', { challenge });
}

function registerMetricsRoute(app: FastifyInstance, ctx: AppContext): void {
  const { token } = ctx.config.metrics;
  app.get('/metrics', async (request, reply) => {
    if (token !== undefined) checkToken(request, token);
    return reply.type(ctx.metrics.contentType).send(await ctx.metrics.exposition());
  });
}

/** On the main application: only with a token and no listener of its own. */
export function registerMetricsEndpoint(app: FastifyInstance, ctx: AppContext): void {
  const { token, listen } = ctx.config.metrics;
  if (token !== undefined && listen === undefined) registerMetricsRoute(app, ctx);
}

/** The listener of `METRICS_LISTEN`, serving only /metrics; undefined when none is configured. */
export async function buildMetricsServer(
  ctx: AppContext,
  log: FastifyBaseLogger,
): Promise<FastifyInstance | undefined> {
  if (ctx.config.metrics.listen === undefined) return undefined;
  // Failures are logged with the application's; each scrape is not.
  const server = Fastify({
    loggerInstance: log,
    logController: new LogController({ disableRequestLogging: true }),
  });
  registerErrorHandling(server);
  registerMetricsRoute(server, ctx);
  await server.ready();
  return server;
}
