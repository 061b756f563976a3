/**
 * `/mcp` over Streamable HTTP: Origin checked first (403 when present and not allowed, against
 * DNS rebinding and foreign pages), then the bearer token, scopes and the grant's request budget,
 * then the SDK's handler serves protocol 2026-07-28 (stateless, per request) and 2025-era
 * clients (initialize handshake, stateless fallback) from the same server factory.
 */
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireBearer } from '../auth/requireBearer.ts';
import type { Authorization } from '../auth/setup.ts';
import type { CalendarDeps } from '../calendars/calendarDeps.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { whileClientWaits } from '../lib/clientGone.ts';
import type { Principal } from '../policy/principal.ts';
import { createMcpServer } from './server.ts';

interface RequestScope {
  principal: Principal;
  log: FastifyRequest['log'];
  signal: AbortSignal;
}

const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);
const exposed = 'WWW-Authenticate, Retry-After, Mcp-Session-Id, Mcp-Protocol-Version';

/**
 * The request as the SDK takes it. A body that is JSON is handed over parsed, so the SDK neither
 * clones the request nor streams its body again; any other body goes as it came, for the SDK's
 * own JSON-RPC parse error.
 */
export function webRequest(url: string, request: FastifyRequest): { request: Request; parsedBody?: unknown } {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || hopByHop.has(name)) continue;
    for (const v of [value].flat()) headers.append(name, v);
  }
  const body = request.body as string;
  try {
    return { request: new Request(url, { method: 'POST', headers }), parsedBody: JSON.parse(body) };
  } catch {
    return { request: new Request(url, { method: 'POST', headers, body }) };
  }
}

export async function registerMcpRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  auth: Authorization,
  calendars: CalendarDeps,
  version: string,
): Promise<void> {
  const resource = auth.server.resources.mcp;
  const allowedOrigins = new Set([new URL(ctx.config.baseUrl).origin, ...ctx.config.mcpAllowedOrigins]);
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const scope = authInfo?.extra?.scope as RequestScope;
      const onUnexpectedError = (error: unknown) => scope.log.error({ err: error }, 'tool failed');
      return createMcpServer(
        {
          calendars: {
            ...calendars,
            onUnexpectedError,
            onCalendarExcluded: (exclusion) => scope.log.warn(exclusion, 'calendar excluded'),
          },
          secretKey: ctx.secretKey,
          version,
          onUnexpectedError,
          metrics: ctx.metrics,
        },
        scope.principal,
        scope.signal,
      );
    },
    { legacy: 'stateless', responseMode: 'auto' },
  );

  const checkOrigin = async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (!allowedOrigins.has(origin))
      throw new AppError('forbidden', 'Requests from this origin are not accepted.');
    reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
    reply.header('access-control-expose-headers', exposed);
  };

  // On the application, not the route plugin: every method to /mcp is checked, including those
  // answered 405, as the transport specification requires of all incoming connections.
  app.addHook('onRequest', async (request, reply) => {
    if (request.url === '/mcp' || request.url.startsWith('/mcp?')) await checkOrigin(request, reply);
  });

  await app.register(async (mcp) => {
    // The SDK reads the JSON-RPC body itself (a parse error is a JSON-RPC error, not a 400 page).
    // No other content type is parsed here: forms, text and the rest are 415 unsupported_media_type.
    mcp.removeAllContentTypeParsers();
    mcp.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );

    mcp.options('/mcp', async (request, reply) => {
      const asked = String(request.headers['access-control-request-headers'] ?? '');
      return reply
        .code(204)
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', asked === '' ? 'Authorization, Content-Type' : asked)
        .header('access-control-max-age', '600')
        .send();
    });

    mcp.post('/mcp', { preHandler: requireBearer(auth, resource, []) }, async (request, reply) => {
      const scope: RequestScope = {
        principal: request.principal,
        log: request.log,
        signal: whileClientWaits(reply.raw),
      };
      const { request: forwarded, parsedBody } = webRequest(resource.url, request);
      const response = await handler.fetch(forwarded, {
        ...(parsedBody === undefined ? {} : { parsedBody }),
        authInfo: {
          token: '',
          clientId: request.principal.clientId,
          scopes: request.principal.scopes,
          resource: new URL(resource.url),
          extra: { scope },
        },
      });
      return reply.send(response);
    });
  });
}
