/** `get_current_time`: now, and the person's time zone where their calendars say it, for relative dates. */
import { grantedCalendars } from '../../calendars/reads/grantedCalendars.ts';
import { showInstant } from '../../domain/eventTiming.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';

const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

export const getCurrentTime: ToolDefinition = {
  name: 'get_current_time',
  title: 'Current time',
  description:
    'Now, and the user\'s time zone: that of their default calendar (primary) when shared and known; without it, ask the user (never guess). For windows such as "today" or "next Tuesday".',
  scopes: ['calendar:read'],
  inputSchema: closedObject({}),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      now: {
        type: 'string',
        description: 'RFC 3339 with the offset of timeZone, else Z.',
      },
      timeZone: { type: 'string' },
      weekday: { type: 'string' },
    },
    ['ok', 'now', 'weekday'],
  ),
  // Open-world as every read: the zone is what a calendar provider says.
  annotations: { readOnlyHint: true, openWorldHint: true },

  async run(_args: Record<string, never>, { principal, calendars }) {
    const { data } = await grantedCalendars(calendars.db, principal);
    const timeZone = data.find((calendar) => calendar.primary)?.timeZone;
    const now = calendars.clock.now().toZonedDateTimeISO(timeZone ?? 'UTC');
    return {
      structured: {
        ok: true,
        now: showInstant(now.toInstant(), timeZone),
        ...(timeZone === undefined ? {} : { timeZone }),
        weekday: weekdays[now.dayOfWeek - 1],
      },
    };
  },
};
