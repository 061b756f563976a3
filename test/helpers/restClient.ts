/** Requests to the REST read interface through `app.inject`: query building and JSON bodies. */
import type { FastifyInstance } from 'fastify';

/** Query parameters in order; a name may repeat (`calendar_id=a&calendar_id=b`). */
export type QueryPairs = Array<[name: string, value: string]>;

export interface RestResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  contentType: string;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field in the tests.
  body: any;
  text: string;
}

export const withQuery = (path: string, query: QueryPairs = []): string =>
  query.length === 0 ? path : `${path}?${new URLSearchParams(query).toString()}`;

export async function restRequest(
  app: FastifyInstance,
  options: {
    method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
    url: string;
    token?: string;
  },
): Promise<RestResponse> {
  const response = await app.inject({
    method: options.method ?? 'GET',
    url: options.url,
    headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
  });
  const contentType = String(response.headers['content-type'] ?? '');
  const json = /json/.test(contentType) && response.body !== '';
  return {
    status: response.statusCode,
    headers: response.headers,
    contentType,
    body: json ? JSON.parse(response.body) : undefined,
    text: response.body,
  };
}

/** GET /v1/events with the given query. */
export const getEvents = (app: FastifyInstance, token: string | undefined, query: QueryPairs) =>
  restRequest(app, { url: withQuery('/v1/events', query), ...(token === undefined ? {} : { token }) });
