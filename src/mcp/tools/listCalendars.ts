/** `list_calendars`: the calendars this grant reaches, with ids to pass to the other tools. */
import { grantedCalendars } from '../../calendars/reads/grantedCalendars.ts';
import { calendarListSchema } from '../../calendars/reads/schemas.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import { untrustedContentRule } from './readArguments.ts';

export const listCalendars: ToolDefinition = {
  name: 'list_calendars',
  title: 'List calendars',
  description: [
    'The calendars the user shared with this assistant: id (for calendarIds), name, provider, readOnly, the detail level seen (full, titles, or busy = times only), time zone when known; excluded counts those left out and why.',
    untrustedContentRule,
  ].join(' '),
  scopes: ['calendar:read'],
  inputSchema: closedObject({}),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      calendars: calendarListSchema.properties.data,
      excluded: calendarListSchema.properties.meta.properties.excluded,
    },
    ['ok', 'calendars', 'excluded'],
  ),
  annotations: { readOnlyHint: true, openWorldHint: true },

  async run(_args: Record<string, never>, { principal, calendars }) {
    const { data, meta } = await grantedCalendars(calendars.db, principal);
    return { structured: { ok: true, calendars: data, excluded: meta.excluded } };
  },
};
