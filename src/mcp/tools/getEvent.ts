/** `get_event`: one event by its ids, read fresh, in the list_events shape (a write's `seen` comes from it). */
import { readOneEvent } from '../../calendars/reads/oneEvent.ts';
import { eventSchema } from '../../domain/eventSchema.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import { readArgumentSchemas, untrustedContentRule } from './readArguments.ts';
import { writeArgumentSchemas } from './writeArguments.ts';

export const getEvent: ToolDefinition = {
  name: 'get_event',
  title: 'Show one event',
  description: [
    "One event read fresh, as list_events shows it (occurrenceId: one occurrence of a series, else its first): a write's seen comes from it.",
    untrustedContentRule,
  ].join(' '),
  scopes: ['calendar:read'],
  inputSchema: closedObject(
    {
      calendarId: { ...readArgumentSchemas.calendarIds.items, description: 'From list_calendars.' },
      eventId: writeArgumentSchemas.eventId,
      occurrenceId: writeArgumentSchemas.occurrenceId,
    },
    ['calendarId', 'eventId'],
  ),
  outputSchema: closedObject({ ok: { type: 'boolean', const: true }, event: eventSchema }, ['ok', 'event']),
  annotations: { readOnlyHint: true, openWorldHint: true },

  async run(args: { calendarId: string; eventId: string; occurrenceId?: string }, { principal, calendars }) {
    return { structured: { ok: true, event: await readOneEvent(calendars, principal, args) } };
  },
};
