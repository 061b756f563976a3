/** `search_events`: the specification's search tool, to the letter (input and output closed). */
import { readEvents } from '../../calendars/reads/readEvents.ts';
import { eventSchema } from '../../domain/eventSchema.ts';
import { fieldsSearchedAt, queryWords, type SearchableField, searchableFields } from '../../domain/search.ts';
import { invalidField } from '../../errors.ts';
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

const defaultLimit = 25;

interface SearchArguments extends ReadArguments {
  query: string;
  limit?: number;
}

export const searchEvents: ToolDefinition = {
  name: 'search_events',
  title: 'Search events',
  description: [
    'Searches the events of the given calendars in a time window for a text and returns the matching occurrences (recurring events are expanded), ordered by start.',
    'Every word of the query must occur in an event, in any order, ignoring case and accents; the title, description, categories and keywords are searched, as far as the calendar\'s detail level shows them. Locations and participants are never searched. On a busy-only calendar the title is a placeholder ("Busy"), so hidden content cannot match: a missing hit proves nothing.',
    windowRule,
    untrustedContentRule,
    `limit (1 to 50, default ${defaultLimit}) caps the events returned; matched counts all matches found. When truncated is true, more may match: narrow the window or the query.`,
    'Each event says whether the assistant may edit or respond (canEdit, canRespond) and, when not, why (editBlockedReason).',
  ].join(' '),
  scopes: ['calendar:read'],
  inputSchema: closedObject(
    {
      calendarIds: readArgumentSchemas.calendarIds,
      query: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: '1 to 200 characters; all of its words must occur, in any order.',
      },
      start: readArgumentSchemas.start,
      end: readArgumentSchemas.end,
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 50,
        description: `Most events to return, 1 to 50 (default ${defaultLimit}).`,
      },
      timeZone: readArgumentSchemas.timeZone,
    },
    ['calendarIds', 'query', 'start', 'end'],
  ),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      termine: { type: 'array', items: eventSchema },
      matched: { type: 'integer', minimum: 0 },
      truncated: { type: 'boolean' },
      searchedFields: { type: 'array', items: { type: 'string', enum: searchableFields } },
    },
    ['ok', 'termine', 'matched', 'truncated', 'searchedFields'],
  ),
  annotations: { readOnlyHint: true, openWorldHint: true },

  async run(args: SearchArguments, { principal, calendars, signal }) {
    const words = queryWords(args.query);
    if (words.length === 0) throw invalidField('query', 'query must contain at least one word.');
    const request = toReadRequest(args);
    const limit = args.limit ?? defaultLimit;
    const read = await readEvents(calendars, principal, request, { words, first: limit, signal });
    const { events: first, total, excluded, levels } = read;
    const searched = new Set<SearchableField>([...levels.values()].flatMap(fieldsSearchedAt));
    const structured = {
      ok: true,
      termine: first.map((m) => m.event),
      matched: total,
      truncated: total > limit || excluded.length > 0,
      searchedFields: searchableFields.filter((f) => searched.has(f)),
    };
    return withReadNotes(structured, read, calendars.clock.now());
  },
};
