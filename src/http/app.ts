/** Builds the HTTP application from its context: plugins, error handling, then each surface's routes. */
import { readFileSync } from 'node:fs';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerAuthorizationRoutes } from '../auth/routes.ts';
import { startAuthorization } from '../auth/setup.ts';
import { createEventIds } from '../calendars/eventIds.ts';
import type { ReadDeps } from '../calendars/reads/readEvents.ts';
import { AppError } from '../errors.ts';
import { registerMcpRoutes } from '../mcp/routes.ts';
import { registerRestRoutes } from '../rest/routes.ts';
import { registerPages } from '../web/pages/index.ts';
import { registerVisitor } from '../web/visitor.ts';
import type { AppContext } from './context.ts';
import { registerErrorHandling } from './errorHandling.ts';
import { loggerOptions, requestIdOptions } from './logging.ts';
import { registerOps } from './ops.ts';

export interface BuildOptions {
  /** Pass false to silence request logs (tests). */
  logger?: boolean;
  /** Where log lines go; standard output by default. */
  logStream?: { write(line: string): void };
}

/** The service's version, as package.json says; MCP clients see it in the server info. */
const serviceVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const readDeps = (ctx: AppContext): ReadDeps => ({
  db: ctx.db,
  clock: ctx.clock,
  box: ctx.box,
  providers: ctx.providers,
  ids: createEventIds(ctx.secretKey),
});

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            ...loggerOptions(ctx.config.logLevel),
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    ...requestIdOptions,
    trustProxy: ctx.config.trustProxy,
    bodyLimit: 1024 * 1024,
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  registerErrorHandling(app);
  await app.register(helmet, {
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
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', 'Too many requests. Slow down and retry later.', {
        retryAfter: Math.max(1, Math.ceil(context.ttl / 1000)),
      }),
  });

  const auth = await startAuthorization(ctx);
  registerVisitor(app, ctx);
  registerOps(app, ctx);
  registerAuthorizationRoutes(app, auth.server, ctx.config.clientRegistrationsPerMinute);
  const read = readDeps(ctx);
  registerRestRoutes(app, ctx, auth, read);
  await registerMcpRoutes(app, ctx, auth, read, serviceVersion);
  registerPages(app, ctx, auth);
  return app;
}
