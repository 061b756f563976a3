/** RFC 9457 problem details: the one error body of the JSON surfaces. */
import type { FastifyReply } from 'fastify';
import type { AppError } from '../errors.ts';
import { statusTitle } from '../lib/httpStatus.ts';

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  instance?: string;
  [extension: string]: unknown;
}

export function toProblem(error: AppError, instance?: string): Problem {
  return {
    type: 'about:blank',
    title: statusTitle(error.status),
    status: error.status,
    code: error.code,
    detail: error.message,
    ...(instance === undefined ? {} : { instance }),
    ...error.details,
  };
}

/** The headers an error brings on any surface: `Retry-After`, `WWW-Authenticate`. */
export function setErrorHeaders(reply: FastifyReply, error: AppError): void {
  if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
  if (error.challenge !== undefined) reply.header('www-authenticate', error.challenge);
}

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  setErrorHeaders(reply, error);
  return reply
    .code(error.status)
    .type('application/problem+json')
    .send(toProblem(error, reply.request.url.split('?')[0]));
}
