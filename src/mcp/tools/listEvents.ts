/** `list_events`: every occurrence in a window, in the same Event shape, page by page. */
import { createPager } from '../../calendars/reads/cursor.ts';
import { readEvents } from '../../calendars/reads/readEvents.ts';
import { eventSchema } from '../../domain/eventSchema.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import { agendaView } from '../views/views.ts';
import {
  type ReadArguments,
  readArgumentSchemas,
  shownTimesRule,
  toReadRequest,
  untrustedContentRule,
  windowRule,
  withReadNotes,
} from './readArguments.ts';

const defaultLimit = 100;

interface ListArguments extends ReadArguments {
  limit?: number;
  cursor?: string;
}

export const listEvents: ToolDefinition = {
  name: 'list_events',
  title: 'List events',
  description: [
    "termine: the occurrences (series expanded) in the window, ordered by start, as each calendar's detail level shows them. limit is the page size; with nextCursor, call again with the same arguments and that cursor. truncated: more pages follow, or a calendar was not read completely (the text says which).",
    shownTimesRule,
    windowRule,
    untrustedContentRule,
  ].join(' '),
  scopes: ['calendar:read'],
  inputSchema: closedObject(
    {
      ...readArgumentSchemas,
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 250,
        default: defaultLimit,
      },
      cursor: {
        type: 'string',
        minLength: 1,
        maxLength: 1024,
        description: 'nextCursor of the previous page.',
      },
    },
    ['calendarIds', 'start', 'end'],
  ),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      termine: { type: 'array', items: eventSchema },
      truncated: { type: 'boolean' },
      nextCursor: { type: 'string' },
    },
    ['ok', 'termine', 'truncated'],
  ),
  annotations: { readOnlyHint: true, openWorldHint: true },
  view: agendaView,

  async run(args: ListArguments, { principal, calendars, secretKey, signal }) {
    const request = toReadRequest(args);
    const pager = createPager(secretKey, principal.grantId, request, { value: args.cursor, field: 'cursor' });
    const limit = args.limit ?? defaultLimit;
    const read = await readEvents(calendars, principal, request, { ...pager.wanted(limit), signal });
    const { events, excluded } = read;
    const page = pager.page(events, limit);
    const structured = {
      ok: true,
      termine: page.items.map((p) => p.event),
      truncated: page.nextCursor !== undefined || excluded.length > 0,
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    };
    return withReadNotes(structured, read, calendars.clock.now());
  },
};
