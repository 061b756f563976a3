/** `get_availability`: when the person is busy, merged across calendars, with no event details. */
import { readEvents } from '../../calendars/reads/readEvents.ts';
import { busyIntervals } from '../../domain/availability.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import {
  type ReadArguments,
  readArgumentSchemas,
  showInstant,
  toReadRequest,
  windowRule,
  withReadNotes,
} from './readArguments.ts';

const instant = { type: 'string', description: 'RFC 3339 date-time with offset.' } as const;

export const getAvailability: ToolDefinition = {
  name: 'get_availability',
  title: 'Get availability',
  description: [
    'Returns the busy intervals of the given calendars in a time window, merged across calendars and cut to the window, without any event details. Free and cancelled events do not count.',
    'Times are given with the offset of timeZone when it is set, else in UTC (Z).',
    windowRule,
    'truncated is true when a calendar could not be read completely (the text says which); then more time may be busy.',
  ].join(' '),
  scopes: ['calendar:read'],
  inputSchema: closedObject(readArgumentSchemas, ['calendarIds', 'start', 'end']),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      busy: {
        type: 'array',
        items: closedObject({ start: instant, end: instant }, ['start', 'end']),
      },
      truncated: { type: 'boolean' },
    },
    ['ok', 'busy', 'truncated'],
  ),
  annotations: { readOnlyHint: true, openWorldHint: true },

  async run(args: ReadArguments, { principal, calendars, signal }) {
    const request = toReadRequest(args);
    const read = await readEvents(calendars, principal, request, { signal, busy: { tentativeIsBusy: true } });
    const { events, excluded } = read;
    const structured = {
      ok: true,
      busy: busyIntervals(events, request.window, {}, read.busy).map((s) => ({
        start: showInstant(s.start, request.timeZone),
        end: showInstant(s.end, request.timeZone),
      })),
      truncated: excluded.length > 0,
    };
    return withReadNotes(structured, read, calendars.clock.now());
  },
};
