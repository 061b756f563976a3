/** `search_events`: the specification's search tool, to the letter (input and output closed). */
import { readEvents } from '../../calendars/reads/readEvents.ts';
import { eventSchema } from '../../domain/eventSchema.ts';
import { fieldsSearchedAt, queryWords, type SearchableField, searchableFields } from '../../domain/search.ts';
import { invalidField } from '../../errors.ts';
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

const defaultLimit = 25;

interface SearchArguments extends ReadArguments {
  query: string;
  limit?: number;
}

export const searchEvents: ToolDefinition = {
  name: 'search_events',
  title: 'Search events',
  description: [
    'The occurrences (series expanded) in the window holding every word of query, in any order, case and accents ignored, in the title, description, categories or keywords as the calendar\'s detail level shows them; ordered by start. Locations and participants are never searched; a busy-only calendar\'s title is a placeholder ("Busy"), so a missing hit proves nothing.',
    'termine: the events; matched counts all matches; truncated true: more may match (narrow the window or query). canEdit, canRespond: what the assistant may do; editBlockedReason: why not.',
    shownTimesRule,
    windowRule,
    untrustedContentRule,
  ].join(' '),
  scopes: ['calendar:read'],
  inputSchema: closedObject(
    {
      calendarIds: readArgumentSchemas.calendarIds,
      query: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
      },
      start: readArgumentSchemas.start,
      end: readArgumentSchemas.end,
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 50,
        // The specification's input schema, to the letter: the default is said, not a keyword.
        description: `Default ${defaultLimit}.`,
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
  view: agendaView,

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
