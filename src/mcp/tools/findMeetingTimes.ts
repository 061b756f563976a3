/** `find_meeting_times`: the earliest free slots for a meeting across calendars, times only. */
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
    'The earliest free slots of durationMinutes in the window across the calendars, in order, not overlapping, no event details.',
    'A slot lies inside one working period (local times in timeZone, kept across DST changes), starts on a local multiple of stepMinutes at least minimumNoticeMinutes from now, and keeps bufferMinutes clear of busy time on each side.',
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
          "Local HH:MM, start before end (24:00 ends the day); one day's periods do not overlap; days not named have none. Default Monday-Friday 09:00-17:00.",
      },
      minimumNoticeMinutes: minutes(0, 10080, 0),
      bufferMinutes: minutes(0, 240, 0),
      tentativeIsBusy: { type: 'boolean', default: true },
      limit: minutes(1, 50, 10),
      stepMinutes: { type: 'integer', enum: [...stepChoices], default: 15 },
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
