/**
 * The authorization server on the wire: `/api/auth/*` handed to oidc-provider untouched (it reads
 * its own bodies), RFC 8414 metadata at the path-inserted well-known URL, RFC 9728 metadata for
 * each protected resource. Registration, token and authorization endpoints are rate limited.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { AuthorizationServer } from './authorizationServer.ts';
import { clientLimits } from './clientRules.ts';

const prefix = '/api/auth';
const perMinute = (max: number) => ({ rateLimit: { max, timeWindow: '1 minute' } });

export function registerAuthorizationRoutes(
  app: FastifyInstance,
  server: AuthorizationServer,
  registrationsPerMinute: number,
): void {
  const issuer = new URL(server.issuer);

  /**
   * Passes the raw request to oidc-provider as if it were mounted at `/api/auth`. The endpoint
   * URLs it derives come from BASE_URL, never from the request's Host or forwarding headers.
   */
  const handOver = (path: string) => (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    const raw = request.raw as typeof request.raw & { originalUrl?: string };
    const query = raw.url?.includes('?') ? raw.url.slice(raw.url.indexOf('?')) : '';
    raw.originalUrl = `${prefix}${path}${query}`;
    raw.url = path + query;
    raw.headers.host = issuer.host;
    raw.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
    delete raw.headers['x-forwarded-host'];
    delete raw.headers['x-forwarded-port'];
    reply.raw.on('finish', () => {
      request.log.info({ res: { statusCode: reply.raw.statusCode } }, 'request completed');
    });
    server.handle(raw, reply.raw);
  };
  const rest = (request: FastifyRequest) => request.url.split('?')[0]!.slice(prefix.length) || '/';
  const forward = (request: FastifyRequest, reply: FastifyReply) => handOver(rest(request))(request, reply);

  app.register(async (scope) => {
    // oidc-provider parses its own bodies: leave the stream unread.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));

    scope.post(`${prefix}/reg`, { config: perMinute(registrationsPerMinute) }, (request, reply) => {
      const length = Number(request.headers['content-length'] ?? 0);
      if (length > clientLimits.registrationBytes) {
        throw new AppError(
          'payload_too_large',
          `A registration is at most ${clientLimits.registrationBytes} bytes.`,
        );
      }
      // Registration is open and needs no credentials, so browser-based clients may use it from anywhere.
      reply.raw.setHeader('access-control-allow-origin', '*');
      forward(request, reply);
    });
    scope.options(`${prefix}/reg`, async (_request, reply) =>
      reply
        .header('access-control-allow-origin', '*')
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', 'content-type')
        .header('access-control-max-age', '3600')
        .code(204)
        .send(),
    );
    scope.post(`${prefix}/token`, { config: perMinute(60) }, forward);
    scope.all(`${prefix}/*`, { config: perMinute(120) }, forward);

    const discovery = handOver('/.well-known/openid-configuration');
    scope.get(`/.well-known/oauth-authorization-server${prefix}`, discovery);
    scope.options(`/.well-known/oauth-authorization-server${prefix}`, discovery);
  });

  for (const resource of Object.values(server.resources)) {
    const path = `/.well-known/oauth-protected-resource/${resource.name}`;
    const metadata = {
      resource: resource.url,
      authorization_servers: [server.issuer],
      scopes_supported: resource.scopes,
      bearer_methods_supported: ['header'],
      resource_name: resource.name === 'mcp' ? 'Calendar Access MCP' : 'Calendar Access REST API',
    };
    app.get(path, async (_request, reply) => {
      reply.header('access-control-allow-origin', '*');
      return metadata;
    });
    app.options(path, async (_request, reply) =>
      reply
        .header('access-control-allow-origin', '*')
        .header('access-control-allow-methods', 'GET')
        .header('access-control-allow-headers', 'mcp-protocol-version')
        .code(204)
        .send(),
    );
  }
}
