/** `get_event_guests`: who organises an event and who is invited, with their answers. */
import { readEventGuests } from '../../calendars/reads/eventGuests.ts';
import { responseStatuses } from '../../domain/event.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import { untrustedContentRule } from './readArguments.ts';
import { writeArgumentSchemas } from './writeArguments.ts';

const person = {
  email: { type: 'string' },
  name: { type: 'string' },
  self: { type: 'boolean', description: 'The user.' },
} as const;

export const getEventGuests: ToolDefinition = {
  name: 'get_event_guests',
  title: 'Show who is invited',
  description: [
    "An event's organizer and guests with their answers, read fresh; full detail only (else access_denied). occurrenceId names one occurrence.",
    untrustedContentRule,
  ].join(' '),
  scopes: ['calendar:read'],
  inputSchema: closedObject(
    { eventId: writeArgumentSchemas.eventId, occurrenceId: writeArgumentSchemas.occurrenceId },
    ['eventId'],
  ),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      organizer: closedObject(person, ['email', 'self']),
      attendees: {
        type: 'array',
        items: closedObject(
          {
            ...person,
            optional: { type: 'boolean' },
            response: { type: 'string', enum: [...responseStatuses] },
          },
          ['email', 'optional', 'response', 'self'],
        ),
      },
      omitted: { type: 'integer', description: 'Guests beyond the first 1000.' },
    },
    ['ok', 'attendees'],
  ),
  annotations: { readOnlyHint: true, openWorldHint: true },

  async run(args: { eventId: string; occurrenceId?: string }, { principal, calendars }) {
    const guests = await readEventGuests(calendars, principal, args);
    return { structured: { ok: true, ...guests } };
  },
};
