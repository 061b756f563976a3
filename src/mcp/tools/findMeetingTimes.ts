/** `find_meeting_times`: the earliest free slots for a meeting across calendars, times only. */
import { type AttendeeAvailability, attendeesBusy } from '../../calendars/reads/colleagueBusy.ts';
import { readEvents } from '../../calendars/reads/readEvents.ts';
import { workspaceRooms } from '../../calendars/rooms.ts';
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
import { roomNeeds } from '../../domain/rooms.ts';
import { bestSlots, freeRoom, inHours, slotPeople } from '../../domain/slotPeople.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import { emailKey } from '../../people/email.ts';
import type { ToolDefinition } from '../tool.ts';
import { freeTimesView } from '../views/views.ts';
import { attendeesSchema, parseAttendees } from './attendeeArguments.ts';
import { type ReadArguments, readArgumentSchemas, toReadRequest, withReadNotes } from './readArguments.ts';
import { roomNeedsProperties } from './roomArguments.ts';

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
  requireAll?: boolean;
  rooms?: { minCapacity?: number; features?: string[] };
}

/** Rooms asked about per call: with 20 attendees, within one provider lookup's bounds. */
const maxRoomsAsked = 10;
/** Best effort ranks the earliest slots free for the caller, this many at most. */
const bestEffortCandidates = 200;

const minutes = (minimum: number, maximum: number, defaultValue?: number) =>
  ({
    type: 'integer',
    minimum,
    maximum,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
  }) as const;
const localTime = { type: 'string', pattern: localTimePattern } as const;
const instant = { type: 'string' } as const;
const addresses = { type: 'array', items: { type: 'string' } } as const;

export const findMeetingTimes: ToolDefinition = {
  name: 'find_meeting_times',
  title: 'Find meeting times',
  description: [
    'The earliest free slots of durationMinutes in the window across the calendars and known attendees (free; others: unknown), in order, not overlapping, no event details.',
    'A slot lies in one working period (local times in timeZone, across DST changes), starts on a local multiple of stepMinutes, minimumNoticeMinutes or more from now, and keeps bufferMinutes free each side.',
    'Busy: busy, not cancelled events; tentative ones unless tentativeIsBusy is false. truncated: a calendar was not read completely (the text says which), so a slot may not be free.',
    "Attendees' working hours, where known, bound slots too. rooms: each slot names a free one.",
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
      requireAll: {
        type: 'boolean',
        default: true,
        description: 'false: slots where fewest attendees are busy or outside their hours (outsideHours).',
      },
      rooms: closedObject(roomNeedsProperties),
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
            // Attendees' addresses: free, busy and outside their working hours (best effort only),
            // nothing said of the unknown ones' busy time.
            free: addresses,
            unknown: addresses,
            busy: addresses,
            outsideHours: addresses,
            room: { type: 'string' },
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
    const needs = args.rooms === undefined ? undefined : roomNeeds(args.rooms);
    // The smallest fitting rooms are asked about, as many as one lookup may name besides the attendees.
    const rooms =
      needs === undefined ? [] : (await workspaceRooms(calendars, principal, needs)).slice(0, maxRoomsAsked);
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
    // Rooms are asked of the same lookups as the attendees outside the workspace, at once.
    const told = await attendeesBusy(
      calendars,
      principal,
      [...asked, ...rooms.map((room) => ({ email: room.email, key: emailKey(room.email) }))],
      { window: reach, timeZone: args.timeZone, tentativeIsBusy },
    );
    const knownBusy = (a: AttendeeAvailability) => ({
      email: a.email,
      ...(a.availability === 'known' ? { busy: a.busy } : {}),
      ...(a.workingHours === undefined ? {} : { workingHours: a.workingHours }),
    });
    const people = told.slice(0, asked.length).map(knownBusy);
    const roomBusy = told.slice(asked.length).map(knownBusy);
    const requireAll = args.requireAll ?? true;
    // All: a slot is free for every attendee whose busy time is known, inside the hours of every
    // one whose hours are known. Best effort: for the caller; the others rank the slots.
    const theirs = requireAll ? people.flatMap((p) => p.busy ?? []) : [];
    const busy = busyIntervals(read.events, reach, { tentativeIsBusy }, [...read.busy, ...theirs]);
    const now = calendars.clock.now();
    const limit = args.limit ?? 10;
    const candidates = meetingTimes(busy, {
      window: request.window,
      timeZone: args.timeZone,
      week,
      durationMinutes: args.durationMinutes,
      now,
      noticeMinutes: args.minimumNoticeMinutes ?? 0,
      bufferMinutes,
      stepMinutes: args.stepMinutes ?? 15,
      limit: requireAll ? limit : bestEffortCandidates,
      accept: (slot) =>
        (needs === undefined || freeRoom(roomBusy, slot) !== undefined) &&
        (!requireAll || people.every((person) => inHours(person, slot))),
    });
    const slots = requireAll ? candidates : bestSlots(candidates, people, limit);
    const structured = {
      ok: true,
      slots: slots.map((slot) => {
        const who = slotPeople(people, slot);
        const room = freeRoom(roomBusy, slot);
        return {
          start: showInstant(slot.start, args.timeZone),
          end: showInstant(slot.end, args.timeZone),
          ...(args.attendees === undefined
            ? {}
            : {
                free: who.free,
                unknown: who.unknown,
                ...(requireAll ? {} : { busy: who.busy, outsideHours: who.outsideHours }),
              }),
          ...(room === undefined ? {} : { room }),
        };
      }),
      truncated: read.excluded.length > 0,
    };
    const outcome = withReadNotes(structured, read, now);
    // No slot for want of a room says so: the room is what is missing, not the time.
    const roomless =
      needs === undefined || roomBusy.some((room) => room.busy !== undefined)
        ? undefined
        : rooms.length === 0
          ? 'No room of the workspace has minCapacity seats and every feature asked (list_rooms shows them).'
          : "No fitting room's free/busy could be told by the user's calendar providers, so no slot names a room.";
    return roomless === undefined ? outcome : { ...outcome, notes: [...(outcome.notes ?? []), roomless] };
  },
};
