/** `list_events`: every occurrence in a window, in the same Event shape, page by page. */
import { createPager } from '../../calendars/reads/cursor.ts';
import { readEvents } from '../../calendars/reads/readEvents.ts';
import { eventSchema } from '../../domain/eventSchema.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import {
  type ReadArguments,
  readArgumentSchemas,
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
    "Lists the events of the given calendars in a time window, recurring events expanded into their occurrences, ordered by start. Fields beyond the time show as far as each calendar's detail level allows.",
    windowRule,
    untrustedContentRule,
    `limit (1 to 250, default ${defaultLimit}) sets the page size; when nextCursor is present, call again with the same arguments and that cursor for the next page.`,
    'truncated is true when more pages follow or a calendar could not be read completely (the text says which).',
  ].join(' '),
  scopes: ['calendar:read'],
  inputSchema: closedObject(
    {
      ...readArgumentSchemas,
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 250,
        description: `Page size, 1 to 250 (default ${defaultLimit}).`,
      },
      cursor: {
        type: 'string',
        minLength: 1,
        maxLength: 1024,
        description: 'nextCursor of the previous page; the other arguments must stay the same.',
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
