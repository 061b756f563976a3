/** `get_current_time`: now, and the person's time zone where their calendars say it, for relative dates. */
import { grantedCalendars } from '../../calendars/reads/grantedCalendars.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';

const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

export const getCurrentTime: ToolDefinition = {
  name: 'get_current_time',
  title: 'Current time',
  description:
    'The current time, and the user\'s time zone when known: that of the user\'s default calendar (primary in list_calendars) when it is shared with this assistant and has one. Use it to turn "today", "next Tuesday" and the like into windows. Without timeZone, ask the user for theirs (never guess it).',
  scopes: ['calendar:read'],
  inputSchema: closedObject({}),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      now: {
        type: 'string',
        description: 'Now, ISO 8601 to the second, with the offset of timeZone (Z without it).',
      },
      timeZone: { type: 'string', description: "The user's IANA time zone." },
      weekday: { type: 'string', description: 'The day of the week of now, in timeZone (UTC without it).' },
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
        now:
          timeZone === undefined
            ? now.toInstant().toString({ smallestUnit: 'second' })
            : now.toString({ smallestUnit: 'second', timeZoneName: 'never' }),
        ...(timeZone === undefined ? {} : { timeZone }),
        weekday: weekdays[now.dayOfWeek - 1],
      },
    };
  },
};
