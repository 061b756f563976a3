/** `find_meeting_times`: the earliest free slots for a meeting across calendars, times only. */
import { attendeesBusy } from '../../calendars/reads/colleagueBusy.ts';
import { readEvents } from '../../calendars/reads/readEvents.ts';
import { busyIntervals } from '../../domain/availability.ts';
import { weekdays } from '../../domain/eventRecurrence.ts';
import { showInstant } from '../../domain/eventTiming.ts';
import {
  defaultWorkingHours,
  localTimePattern,
  meetingTimes,
  parseWorkingHours,
  type StepMinutes,
  stepChoices,
  type WorkingHoursInput,
} from '../../domain/meetingTimes.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import { freeTimesView } from '../views/views.ts';
import { attendeesSchema, parseAttendees } from './attendeeArguments.ts';
import {
  type ReadArguments,
  readArgumentSchemas,
  shownTimesRule,
  toReadRequest,
  withReadNotes,
} from './readArguments.ts';

interface MeetingArguments extends ReadArguments {
  timeZone: string;
  durationMinutes: number;
  workingHours?: WorkingHoursInput[];
  minimumNoticeMinutes?: number;
  bufferMinutes?: number;
  tentativeIsBusy?: boolean;
  limit?: number;
  stepMinutes?: StepMinutes;
  attendees?: string[];
}

const minutes = (minimum: number, maximum: number, defaultValue?: number) =>
  ({
    type: 'integer',
    minimum,
    maximum,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
  }) as const;
const localTime = { type: 'string', pattern: localTimePattern } as const;
const instant = { type: 'string' } as const;

export const findMeetingTimes: ToolDefinition = {
  name: 'find_meeting_times',
  title: 'Find meeting times',
  description: [
    'The earliest free slots of durationMinutes in the window across the calendars and known attendees (free; others: unknown), in order, not overlapping, no event details.',
    'A slot lies in one working period (local times in timeZone, across DST changes), starts on a local multiple of stepMinutes, minimumNoticeMinutes or more from now, and keeps bufferMinutes free each side.',
    'Busy: busy, not cancelled events; tentative ones unless tentativeIsBusy is false. truncated: a calendar was not read completely (the text says which), so a slot may not be free.',
    shownTimesRule,
  ].join(' '),
  scopes: ['calendar:read'],
  inputSchema: closedObject(
    {
      ...readArgumentSchemas,
      timeZone: {
        ...readArgumentSchemas.timeZone,
        description: "The user's IANA zone as they confirmed it, never guessed.",
      },
      durationMinutes: minutes(5, 1440),
      workingHours: {
        type: 'array',
        minItems: 1,
        maxItems: 7,
        items: closedObject(
          {
            days: {
              type: 'array',
              items: { type: 'string', enum: [...weekdays] },
              minItems: 1,
              maxItems: 7,
              uniqueItems: true,
            },
            start: localTime,
            end: localTime,
          },
          ['days', 'start', 'end'],
        ),
        description:
          "Local HH:MM, start before end (24:00 ends the day), a day's periods not overlapping; days not named have none. Default Mon-Fri 09:00-17:00.",
      },
      minimumNoticeMinutes: minutes(0, 10080, 0),
      bufferMinutes: minutes(0, 240, 0),
      tentativeIsBusy: { type: 'boolean', default: true },
      limit: minutes(1, 50, 10),
      stepMinutes: { type: 'integer', enum: [...stepChoices], default: 15 },
      attendees: { type: 'array', maxItems: attendeesSchema.maxItems, items: attendeesSchema.items },
    },
    ['calendarIds', 'start', 'end', 'timeZone', 'durationMinutes'],
  ),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      slots: {
        type: 'array',
        items: closedObject(
          {
            start: instant,
            end: instant,
            // Attendees' addresses: free for all known ones, nothing said of the unknown ones.
            free: { type: 'array', items: { type: 'string' } },
            unknown: { type: 'array', items: { type: 'string' } },
          },
          ['start', 'end'],
        ),
      },
      truncated: { type: 'boolean' },
    },
    ['ok', 'slots', 'truncated'],
  ),
  annotations: { readOnlyHint: true, openWorldHint: true },
  view: freeTimesView,

  async run(args: MeetingArguments, { principal, calendars, signal }) {
    const request = toReadRequest(args);
    const asked = parseAttendees(args.attendees);
    const week = parseWorkingHours(args.workingHours ?? defaultWorkingHours, 'workingHours');
    const bufferMinutes = args.bufferMinutes ?? 0;
    // Busy time just outside the window still needs its buffer.
    const reach = {
      start: request.window.start.subtract({ minutes: bufferMinutes }),
      end: request.window.end.add({ minutes: bufferMinutes }),
    };
    const tentativeIsBusy = args.tentativeIsBusy ?? true;
    const read = await readEvents(
      calendars,
      principal,
      { ...request, window: reach },
      { signal, busy: { tentativeIsBusy } },
    );
    const attendees = await attendeesBusy(calendars, principal, asked, {
      window: reach,
      timeZone: args.timeZone,
      tentativeIsBusy,
    });
    const theirs = attendees.flatMap((a) => (a.availability === 'known' ? a.busy : []));
    const busy = busyIntervals(read.events, reach, { tentativeIsBusy }, [...read.busy, ...theirs]);
    // A slot is free for every attendee whose busy time is known; the others cannot be told.
    const who =
      args.attendees === undefined
        ? {}
        : {
            free: attendees.filter((a) => a.availability === 'known').map((a) => a.email),
            unknown: attendees.filter((a) => a.availability === 'unknown').map((a) => a.email),
          };
    const now = calendars.clock.now();
    const slots = meetingTimes(busy, {
      window: request.window,
      timeZone: args.timeZone,
      week,
      durationMinutes: args.durationMinutes,
      now,
      noticeMinutes: args.minimumNoticeMinutes ?? 0,
      bufferMinutes,
      stepMinutes: args.stepMinutes ?? 15,
      limit: args.limit ?? 10,
    });
    const structured = {
      ok: true,
      slots: slots.map((s) => ({
        start: showInstant(s.start, args.timeZone),
        end: showInstant(s.end, args.timeZone),
        ...who,
      })),
      truncated: read.excluded.length > 0,
    };
    return withReadNotes(structured, read, now);
  },
};
