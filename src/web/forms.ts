/** Small helpers shared by the page routes: sending HTML, form error redisplay, safe redirects. */
import type { FastifyReply } from 'fastify';
import { AppError, isAppError } from '../errors.ts';

export function sendHtml(reply: FastifyReply, body: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);
}

/**
 * Errors a person can fix by changing the form (bad value, wrong password, taken address, too
 * many tries) are shown on the form again; anything else goes to the error handler.
 */
const formErrors = ['invalid_request', 'invalid_credentials', 'already_exists', 'conflict', 'rate_limited'];

export function correctable(error: unknown, alsoCorrectable: readonly string[] = []): AppError {
  if (isAppError(error) && (formErrors.includes(error.code) || alsoCorrectable.includes(error.code)))
    return error;
  throw error;
}

/** Only same-site paths: `/x` but not `//host` or `/\host`, so sign-in is no open redirect. */
export function safeNext(next: unknown, fallback = '/account'): string {
  if (typeof next !== 'string' || !/^\/(?![/\\])[\x21-\x7e]*$/.test(next)) return fallback;
  return next;
}

export type Form = Record<string, unknown>;
export const formOf = (body: unknown): Form =>
  body !== null && typeof body === 'object' ? (body as Form) : {};

export const notFoundError = () => new AppError('not_found', 'There is nothing at this address.');
