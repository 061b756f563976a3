/**
 * The read-only REST interface under `/v1`, behind bearer verification: the same read service
 * and the same checks as the MCP tools. Only GET exists; any other method answers 405.
 */
import type { FastifyInstance } from 'fastify';
import { requireBearer } from '../auth/requireBearer.ts';
import type { Authorization } from '../auth/setup.ts';
import type { CalendarDeps } from '../calendars/calendarDeps.ts';
import { createPager } from '../calendars/reads/cursor.ts';
import { grantedCalendars } from '../calendars/reads/grantedCalendars.ts';
import { readEvents } from '../calendars/reads/readEvents.ts';
import type { AppContext } from '../context.ts';
import { whileClientWaits } from '../lib/clientGone.ts';
import { parseEventsQuery } from './eventsQuery.ts';
import { openApiDocument } from './openapi.ts';

type Query = Record<string, string | string[] | undefined>;

export function registerRestRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  auth: Authorization,
  calendars: CalendarDeps,
): void {
  const v1 = auth.server.resources.v1;
  const bearer = requireBearer(auth, v1, ['calendar:read']);
  const document = JSON.stringify(openApiDocument(ctx.config.baseUrl, auth.server.resources));

  app.get('/v1/openapi.json', async (_request, reply) =>
    reply.type('application/json').header('access-control-allow-origin', '*').send(document),
  );

  app.get('/v1/calendars', { preHandler: bearer }, async (request) =>
    grantedCalendars(ctx.db, request.principal),
  );

  app.get('/v1/events', { preHandler: bearer }, async (request, reply) => {
    const { request: readRequest, limit, cursor } = parseEventsQuery(request.query as Query);
    const pager = createPager(ctx.secretKey, request.principal.grantId, readRequest, {
      value: cursor,
      field: 'cursor',
    });
    const { events, excluded, stale } = await readEvents(
      {
        ...calendars,
        onUnexpectedError: (error) => request.log.error({ err: error }, 'calendar read failed'),
        onCalendarExcluded: (exclusion) => request.log.warn(exclusion, 'calendar excluded'),
      },
      request.principal,
      readRequest,
      { ...pager.wanted(limit), signal: whileClientWaits(reply.raw) },
    );
    const page = pager.page(events, limit);
    return {
      data: page.items.map((p) => p.event),
      meta: {
        excluded,
        ...(stale.length === 0 ? {} : { stale }),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      },
    };
  });
}
