/** Wire helpers for the fake Google: JSON answers and Google's error bodies. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface FakeRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): FakeResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
  body: JSON.stringify(body),
});

const statusNames: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  410: 'NOT_FOUND',
  412: 'FAILED_PRECONDITION',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Defaults per status, as the Calendar API error guide lists them. */
const defaults: Record<number, { reason: string; domain: string; message: string }> = {
  400: { reason: 'badRequest', domain: 'global', message: 'Bad Request' },
  401: { reason: 'authError', domain: 'global', message: 'Invalid Credentials' },
  403: { reason: 'rateLimitExceeded', domain: 'usageLimits', message: 'Rate Limit Exceeded' },
  404: { reason: 'notFound', domain: 'global', message: 'Not Found' },
  409: { reason: 'duplicate', domain: 'global', message: 'The requested identifier already exists.' },
  410: {
    reason: 'fullSyncRequired',
    domain: 'calendar',
    message: 'Sync token is no longer valid, a full sync is required.',
  },
  412: { reason: 'conditionNotMet', domain: 'global', message: 'Precondition Failed' },
  429: { reason: 'rateLimitExceeded', domain: 'usageLimits', message: 'Rate Limit Exceeded' },
  500: { reason: 'backendError', domain: 'global', message: 'Backend Error' },
  503: { reason: 'backendError', domain: 'global', message: 'Service Unavailable' },
};

export function googleError(
  status: number,
  options: {
    reason?: string;
    message?: string;
    domain?: string;
    headers?: Record<string, string>;
    /** The query parameter at fault, named as Google names it (`locationType: parameter`). */
    parameter?: string;
  } = {},
): FakeResponse {
  const known = defaults[status] ?? { reason: 'unknown', domain: 'global', message: `HTTP ${status}` };
  const reason = options.reason ?? known.reason;
  const message = options.message ?? known.message;
  const domain = options.domain ?? known.domain;
  const headers = { ...options.headers };
  if (status === 401)
    headers['www-authenticate'] = 'Bearer realm="https://accounts.google.com/", error="invalid_token"';
  return json(
    {
      error: {
        errors: [
          {
            domain,
            reason,
            message,
            ...(options.parameter ? { locationType: 'parameter', location: options.parameter } : {}),
          },
        ],
        code: status,
        message,
        ...(statusNames[status] ? { status: statusNames[status] } : {}),
      },
    },
    status,
    headers,
  );
}

export async function readRequest(req: IncomingMessage, origin: string): Promise<FakeRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return {
    method: req.method ?? 'GET',
    url: new URL(req.url ?? '/', origin),
    headers: req.headers,
    body: Buffer.concat(chunks).toString('utf8'),
  };
}

export function send(res: ServerResponse, response: FakeResponse): void {
  if (res.destroyed) return;
  res.writeHead(response.status, response.headers);
  res.end(response.body === undefined ? undefined : String(response.body));
}
