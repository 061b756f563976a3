/** `find_meeting_times`: the earliest free slots for a meeting across calendars, times only. */
import { readEvents } from '../../calendars/reads/readEvents.ts';
import { busyIntervals } from '../../domain/availability.ts';
import { weekdays } from '../../domain/eventRecurrence.ts';
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
import {
  type ReadArguments,
  readArgumentSchemas,
  showInstant,
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
}

const minutes = (minimum: number, maximum: number, description: string) =>
  ({ type: 'integer', minimum, maximum, description }) as const;
const localTime = { type: 'string', pattern: localTimePattern } as const;
const instant = { type: 'string', description: 'RFC 3339 date-time with the offset of timeZone.' } as const;

export const findMeetingTimes: ToolDefinition = {
  name: 'find_meeting_times',
  title: 'Find meeting times',
  description: [
    'Returns the earliest free slots of durationMinutes in the window, in order and not overlapping, across the given calendars, without any event details.',
    'A slot lies inside one working period (local times in timeZone, kept across daylight saving changes), starts on a local multiple of stepMinutes at least minimumNoticeMinutes from now, and keeps bufferMinutes clear of busy time on each side.',
    'Busy: busy, not cancelled events; tentative ones unless tentativeIsBusy is false.',
    'truncated is true when a calendar could not be read completely (the text says which); then a slot may not be free.',
  ].join(' '),
  scopes: ['calendar:read'],
  inputSchema: closedObject(
    {
      ...readArgumentSchemas,
      timeZone: {
        ...readArgumentSchemas.timeZone,
        description:
          "The user's IANA time zone (e.g. Europe/Berlin), confirmed with the user: working hours and answers are in it. Never guess it.",
      },
      durationMinutes: minutes(5, 1440, 'Length of the meeting.'),
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
          'Working periods: local HH:MM start before end (24:00 ends the day), periods of one day not overlapping; days not named have none. Default Monday to Friday 09:00-17:00.',
      },
      minimumNoticeMinutes: minutes(0, 10080, 'Minutes from now before the first slot may start; default 0.'),
      bufferMinutes: minutes(0, 240, 'Free minutes needed before and after each slot; default 0.'),
      tentativeIsBusy: { type: 'boolean', description: 'Whether tentative events block; default true.' },
      limit: minutes(1, 50, 'At most this many slots; default 10.'),
      stepMinutes: {
        type: 'integer',
        enum: [...stepChoices],
        description: 'Slot starts fall on local multiples of this; default 15.',
      },
    },
    ['calendarIds', 'start', 'end', 'timeZone', 'durationMinutes'],
  ),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      slots: {
        type: 'array',
        items: closedObject({ start: instant, end: instant }, ['start', 'end']),
      },
      truncated: { type: 'boolean' },
    },
    ['ok', 'slots', 'truncated'],
  ),
  annotations: { readOnlyHint: true, openWorldHint: true },

  async run(args: MeetingArguments, { principal, calendars, signal }) {
    const request = toReadRequest(args);
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
    const busy = busyIntervals(read.events, reach, { tentativeIsBusy }, read.busy);
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
      })),
      truncated: read.excluded.length > 0,
    };
    return withReadNotes(structured, read, now);
  },
};
