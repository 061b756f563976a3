/**
 * The one place HTTP errors become responses: problem+json for APIs, an HTML page for pages;
 * unknown paths answer 404 and known paths with another method 405 with `Allow`.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { AppError, isAppError } from '../errors.ts';
import { storageFull } from '../store/storageFull.ts';
import { errorPage } from '../web/errorPage.ts';
import { sendProblem, setErrorHeaders } from './problem.ts';

export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  // PostgreSQL's full disk (SQLite's is mapped by its driver).
  const full = storageFull(error);
  if (full !== undefined) return full;
  const e = error as Partial<FastifyError>;
  if (e.validation !== undefined) return new AppError('invalid_request', e.message ?? 'Invalid request.');
  switch (e.statusCode) {
    case 413:
      return new AppError('payload_too_large', 'The request body is too large.');
    case 415:
      return new AppError('unsupported_media_type', 'This content type is not accepted here.');
  }
  if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError('invalid_request', e.message ?? 'Invalid request.');
  }
  return new AppError('internal_error', 'Something went wrong on our side. Try again later.', {
    cause: error,
  });
}

const apiPrefixes = ['/v1', '/mcp', '/api/', '/.well-known/'];

function wantsHtml(request: FastifyRequest): boolean {
  if (request.routeOptions.config?.page === true) return true;
  if (request.routeOptions.url !== undefined) return false;
  if (apiPrefixes.some((p) => request.url.startsWith(p))) return false;
  return (request.headers.accept ?? '').includes('text/html');
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (!wantsHtml(request)) return sendProblem(reply, error);
  setErrorHeaders(reply, error);
  return reply
    .code(error.status)
    .type('text/html; charset=utf-8')
    .send(errorPage(error, request.visitor ?? null));
}

export function registerErrorHandling(app: FastifyInstance): void {
  // A mirror of the route table, to tell "no such path" (404) from "not this method" (405).
  const routes = FindMyWay({ ignoreTrailingSlash: false });
  const methods = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      let known = methods.get(route.url);
      if (known === undefined) {
        known = new Set();
        methods.set(route.url, known);
        routes.on(
          ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'] as HTTPMethod[],
          route.url,
          () => {},
          {
            url: route.url,
          },
        );
      }
      known.add(method);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    // The database away: its loss is logged once where it is seen; each request, briefly.
    if (appError.code === 'service_unavailable')
      request.log.warn({ code: appError.code, reason: String(appError.cause) }, 'request refused');
    else if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: appError.code }, 'request refused');
    return sendError(request, reply, appError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const match = routes.find('GET', path);
    const allowed = match ? methods.get((match.store as { url: string }).url) : undefined;
    if (allowed !== undefined && !allowed.has(request.method)) {
      // HEAD comes with every GET route; listing GET says as much.
      const listed = [...allowed].filter((m) => m !== 'HEAD' || !allowed.has('GET'));
      reply.header('allow', listed.sort().join(', '));
      return sendError(
        request,
        reply,
        new AppError('method_not_allowed', `${request.method} is not allowed here.`),
      );
    }
    return sendError(request, reply, new AppError('not_found', 'There is nothing at this address.'));
  });
}
