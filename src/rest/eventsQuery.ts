/**
 * The query of `GET /v1/events`, closed like every input here: `calendar_id` (repeated or
 * comma-separated), `start`, `end`, optional `time_zone`, `limit` (1–1000) and `cursor`. Unknown
 * parameters are refused rather than ignored, so a typo never widens or narrows a read silently.
 */
import { parseReadRequest, type ReadRequest } from '../domain/readRequest.ts';
import { invalidField } from '../errors.ts';

export const defaultEventLimit = 250;
export const maxEventLimit = 1000;
const known = new Set(['calendar_id', 'start', 'end', 'time_zone', 'limit', 'cursor']);

export interface EventsQuery {
  request: ReadRequest;
  limit: number;
  cursor?: string;
}

type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw invalidField(name, `Give ${name} once.`);
  return value;
}

function required(query: Query, name: string): string {
  const value = single(query, name);
  if (value === undefined || value === '')
    throw invalidField(name, `The query parameter ${name} is required.`);
  return value;
}

export function parseEventsQuery(query: Query): EventsQuery {
  for (const name of Object.keys(query)) {
    if (!known.has(name)) throw invalidField(name, `Unknown query parameter "${name}".`);
  }
  const calendarIds = [query.calendar_id ?? []]
    .flat()
    .flatMap((v) => v.split(','))
    .map((v) => v.trim());
  const timeZone = single(query, 'time_zone');
  const request = parseReadRequest(
    { calendarIds, start: required(query, 'start'), end: required(query, 'end'), timeZone },
    { calendarIds: 'calendar_id', start: 'start', end: 'end', timeZone: 'time_zone' },
  );
  const limitText = single(query, 'limit');
  const limit =
    limitText === undefined ? defaultEventLimit : /^\d{1,4}$/.test(limitText) ? Number(limitText) : 0;
  if (limit < 1 || limit > maxEventLimit) {
    throw invalidField('limit', `limit must be a whole number from 1 to ${maxEventLimit}.`);
  }
  const cursor = single(query, 'cursor');
  return cursor === undefined ? { request, limit } : { request, limit, cursor };
}
