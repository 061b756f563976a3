/** `get_availability`: when the person is busy, merged across calendars, with no event details. */
import { attendeesBusy } from '../../calendars/reads/colleagueBusy.ts';
import { readEvents } from '../../calendars/reads/readEvents.ts';
import { busyIntervals } from '../../domain/availability.ts';
import { showInstant } from '../../domain/eventTiming.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import { freeTimesView } from '../views/views.ts';
import {
  attendeesAnswer,
  attendeesAnswerSchema,
  attendeesSchema,
  parseAttendees,
} from './attendeeArguments.ts';
import {
  type ReadArguments,
  readArgumentSchemas,
  shownTimesRule,
  toReadRequest,
  windowRule,
  withReadNotes,
} from './readArguments.ts';

const instant = { type: 'string' } as const;

export const getAvailability: ToolDefinition = {
  name: 'get_availability',
  title: 'Get availability',
  description: [
    'Busy intervals in the window (cut to it), merged across the calendars and known attendees, no event details; free and cancelled events do not count. truncated: a calendar was not read completely (the text says which), so more time may be busy.',
    shownTimesRule,
    windowRule,
  ].join(' '),
  scopes: ['calendar:read'],
  inputSchema: closedObject({ ...readArgumentSchemas, attendees: attendeesSchema }, [
    'calendarIds',
    'start',
    'end',
  ]),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      busy: {
        type: 'array',
        items: closedObject({ start: instant, end: instant }, ['start', 'end']),
      },
      truncated: { type: 'boolean' },
      attendees: attendeesAnswerSchema,
    },
    ['ok', 'busy', 'truncated'],
  ),
  annotations: { readOnlyHint: true, openWorldHint: true },
  view: freeTimesView,

  async run(args: ReadArguments & { attendees?: string[] }, { principal, calendars, signal }) {
    const request = toReadRequest(args);
    const asked = parseAttendees(args.attendees);
    const read = await readEvents(calendars, principal, request, { signal, busy: { tentativeIsBusy: true } });
    const attendees = await attendeesBusy(calendars, principal, asked, { ...request, tentativeIsBusy: true });
    const theirs = attendees.flatMap((a) => (a.availability === 'known' ? a.busy : []));
    const { events, excluded } = read;
    const structured = {
      ok: true,
      busy: busyIntervals(events, request.window, {}, [...read.busy, ...theirs]).map((s) => ({
        start: showInstant(s.start, request.timeZone),
        end: showInstant(s.end, request.timeZone),
      })),
      truncated: excluded.length > 0,
      ...(args.attendees === undefined ? {} : { attendees: attendeesAnswer(attendees) }),
    };
    return withReadNotes(structured, read, calendars.clock.now());
  },
};
