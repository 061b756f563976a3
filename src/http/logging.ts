/** Logger options: JSON lines, request ids, and no secret ever written (headers, tokens, passwords). */
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { type Logger, pino } from 'pino';
import type { LogLevel } from '../config/config.ts';

// Query parameters that can carry credentials or single-use links.
const secretParams = [
  'token',
  'code',
  'code_verifier',
  'client_secret',
  'password',
  'refresh_token',
  'access_token',
  'state',
  'validationtoken',
];

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of [...params.keys()]) {
    if (secretParams.includes(name.toLowerCase())) params.set(name, '[redacted]');
  }
  return `${url.slice(0, q)}?${params.toString()}`;
}

function loggerOptions(level: LogLevel) {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.secret',
        '*.token',
        '*.accessToken',
        '*.refreshToken',
        '*.smtpUrl',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
      }),
    },
  };
}

/**
 * The service's one logger, built before anything that logs: the composition root hands it to
 * Fastify and to what runs beside the requests (Redis, notices, syncs). JSON lines to standard
 * output unless `stream` is given.
 */
export const createLogger = (level: LogLevel, stream?: { write(line: string): void }): Logger =>
  pino(loggerOptions(level), stream);

export const requestIdOptions = {
  requestIdHeader: false as const,
  genReqId: () => randomUUID(),
};
