/** The HTTP application from parts the composition root made: plugins, error handling, each surface's routes. */
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import helmet from 'helmet';
import { registerAuthorizationRoutes } from '../auth/routes.ts';
import type { Authorization } from '../auth/setup.ts';
import type { CalendarDeps } from '../calendars/calendarDeps.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { registerMcpRoutes } from '../mcp/routes.ts';
import type { AdministrationDeps } from '../people/administrationPorts.ts';
import { registerRestRoutes } from '../rest/routes.ts';
import { registerPageInputCheck } from '../web/pageInput.ts';
import { registerPages } from '../web/pages/index.ts';
import { registerVisitor } from '../web/visitor.ts';
import { registerErrorHandling } from './errorHandling.ts';
import { requestIdOptions } from './logging.ts';
import { registerMetricsEndpoint } from './metricsEndpoint.ts';
import { registerOps } from './ops.ts';
import { registerRequestMetrics } from './requestMetrics.ts';
import { type PushWebhooks, registerWebhooks } from './webhooks.ts';

/** What the surfaces share besides the context. */
export interface AppParts {
  auth: Authorization;
  calendars: CalendarDeps;
  /** Workspace administration with its ports (mailer, the ends of grants, the client registry). */
  administration: AdministrationDeps;
  /** The service's version, shown to MCP clients in the server info. */
  version: string;
  /** Change notifications from the providers (absent when push is off: no https address). */
  push?: PushWebhooks;
}

export async function buildApp(
  ctx: AppContext,
  parts: AppParts,
  /** The logger main.ts built (logging.ts#createLogger); none: nothing is logged (tests, the bench). */
  log: FastifyBaseLogger | undefined,
): Promise<FastifyInstance> {
  const { auth, calendars, version } = parts;
  const app = Fastify({
    ...(log === undefined ? { logger: false } : { loggerInstance: log }),
    ...requestIdOptions,
    trustProxy: ctx.config.trustProxy,
    bodyLimit: 1024 * 1024,
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  registerRequestMetrics(app, ctx.metrics);
  registerErrorHandling(app);
  // Helmet's headers, built once: built per request (as @fastify/helmet does) it parses its policy every time.
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        scriptSrc: ["'self'"],
      },
    },
    strictTransportSecurity: ctx.config.baseUrl.startsWith('https:'),
  });
  app.addHook('onRequest', (request, reply, next) => securityHeaders(request.raw, reply.raw, () => next()));
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) => {
      ctx.metrics.refused('route');
      return new AppError('rate_limited', 'Too many requests. Slow down and retry later.', {
        retryAfter: Math.max(1, Math.ceil(context.ttl / 1000)),
      });
    },
  });

  registerVisitor(app, ctx);
  registerPageInputCheck(app);
  registerOps(app, ctx);
  registerMetricsEndpoint(app, ctx);
  registerAuthorizationRoutes(app, auth.server, ctx.config.clientRegistrationsPerMinute);
  registerRestRoutes(app, ctx, auth, calendars);
  await registerMcpRoutes(app, ctx, auth, calendars, version);
  registerPages(app, ctx, auth, parts.administration, calendars);
  if (parts.push !== undefined) await registerWebhooks(app, parts.push);
  return app;
}
