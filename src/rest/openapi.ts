/**
 * `/v1/openapi.json`: a minimal but exact OpenAPI 3.1 description of the read interface, built
 * from the same schemas the routes answer with. Nothing here is written twice.
 */
import type { Resources } from '../auth/resources.ts';
import { issuerFor } from '../auth/resources.ts';
import { calendarListSchema, eventListSchema } from '../calendars/reads/schemas.ts';
import { eventSchema } from '../domain/eventSchema.ts';
import { maxCalendarsPerRequest, maxTimeZoneLength } from '../domain/readRequest.ts';
import { maxWindowHours } from '../domain/window.ts';
import { errorCatalogue } from '../errors.ts';
import { defaultEventLimit, maxEventLimit } from './eventsQuery.ts';

const problemSchema = {
  type: 'object',
  description: 'RFC 9457 problem details with a stable `code`.',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', enum: Object.keys(errorCatalogue) },
    detail: { type: 'string' },
    instance: { type: 'string' },
  },
  required: ['type', 'title', 'status', 'code', 'detail'],
};

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

const authFailures = {
  '401': problem('No valid access token for this resource (see WWW-Authenticate).'),
  '403': problem(
    'The token lacks calendar:read or belongs to no person (forbidden), or a calendar id is unknown to the grant (calendar_not_permitted: ids come from GET /v1/calendars).',
  ),
  '429': problem('Too many requests for this grant; retry after Retry-After seconds.'),
};

const instantParameter = (name: string, description: string) => ({
  name,
  in: 'query',
  required: true,
  description,
  schema: { type: 'string', format: 'date-time' },
});

export function openApiDocument(baseUrl: string, resources: Resources) {
  const issuer = issuerFor(baseUrl);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Calendar Access Service read API',
      version: '1.0.0',
      description:
        'Read-only access to the calendars a user granted to this client. Writes exist only as MCP tools at /mcp.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: `${baseUrl}/v1` }],
    security: [{ oauth2: ['calendar:read'] }],
    tags: [{ name: 'calendars', description: 'Calendars and their events, as far as the grant reaches.' }],
    paths: {
      '/calendars': {
        get: {
          operationId: 'listCalendars',
          tags: ['calendars'],
          summary: 'Calendars of the grant',
          description: 'The calendars the user selected at consent, with the detail level this client sees.',
          responses: {
            '200': {
              description: 'The calendars and what was left out.',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/CalendarList' } } },
            },
            ...authFailures,
          },
        },
      },
      '/events': {
        get: {
          operationId: 'listEvents',
          tags: ['calendars'],
          summary: 'Events in a window',
          description: `Occurrences overlapping [start, end) in up to ${maxCalendarsPerRequest} calendars, recurring events expanded, ordered by start. The window may span at most ${maxWindowHours} elapsed hours.`,
          parameters: [
            {
              name: 'calendar_id',
              in: 'query',
              required: true,
              description: `1 to ${maxCalendarsPerRequest} calendar ids; repeat the parameter or separate ids with commas.`,
              style: 'form',
              explode: true,
              schema: {
                type: 'array',
                minItems: 1,
                maxItems: maxCalendarsPerRequest,
                items: { type: 'string' },
              },
            },
            instantParameter('start', 'Inclusive start with Z or an explicit offset.'),
            instantParameter(
              'end',
              `Exclusive end with Z or an explicit offset, at most ${maxWindowHours} hours after start.`,
            ),
            {
              name: 'time_zone',
              in: 'query',
              required: false,
              description:
                "The user's IANA zone; required for CalDAV and ICS calendars without a known zone (else time_zone_required). Never guessed.",
              schema: { type: 'string', minLength: 1, maxLength: maxTimeZoneLength },
            },
            {
              name: 'limit',
              in: 'query',
              required: false,
              description: 'Page size.',
              schema: { type: 'integer', minimum: 1, maximum: maxEventLimit, default: defaultEventLimit },
            },
            {
              name: 'cursor',
              in: 'query',
              required: false,
              description: 'meta.nextCursor of the previous page, with the same other parameters.',
              schema: { type: 'string' },
            },
          ],
          responses: {
            '200': {
              description: 'The events and the calendars that could not be read (completely).',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/EventList' } } },
            },
            '400': problem('Invalid parameters, including time_zone_required.'),
            ...authFailures,
          },
        },
      },
    },
    components: {
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: `Authorization code with PKCE; request the resource ${resources.v1.url}.`,
          flows: {
            authorizationCode: {
              authorizationUrl: `${issuer}/auth`,
              tokenUrl: `${issuer}/token`,
              refreshUrl: `${issuer}/token`,
              scopes: { 'calendar:read': 'Read calendars and events' },
            },
          },
        },
      },
      schemas: {
        Event: eventSchema,
        CalendarList: calendarListSchema,
        EventList: {
          ...eventListSchema,
          properties: {
            ...eventListSchema.properties,
            data: { type: 'array', items: { $ref: '#/components/schemas/Event' } },
          },
        },
        Problem: problemSchema,
      },
    },
  };
}
