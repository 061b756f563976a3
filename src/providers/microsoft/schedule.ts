/**
 * Other people's busy time through Graph's getSchedule: schedule items busy, tentative, oof and
 * workingElsewhere block time, `free` does not; a schedule Graph answers with `error` for, or
 * with a status it does not say (`unknown`), is left out. Its `workingHours` are read too, when
 * they are plain: weekdays, a start before the end, a zone by its IANA or Windows name (a custom
 * zone or hours across midnight: none known). Only the times are read: an item's subject or
 * location never leaves this file.
 */
import type { BusySpan } from '../../domain/availability.ts';
import { resolveTzid } from '../../domain/time/zones.ts';
import type { TimeWindow } from '../../domain/window.ts';
import { parseWorkingHours, type WorkingHours } from '../../domain/workingHours.ts';
import type { ToldBusy } from '../port.ts';
import type { GraphClient } from './client.ts';
import type { MicrosoftAccount } from './session.ts';

interface GraphScheduleTime {
  dateTime?: string;
  timeZone?: string;
}

interface GraphWorkingHours {
  daysOfWeek?: unknown;
  /** `08:00:00.0000000` */
  startTime?: unknown;
  endTime?: unknown;
  timeZone?: { name?: unknown };
}

interface GraphSchedules {
  value?: Array<{
    scheduleId?: string;
    error?: unknown;
    scheduleItems?: Array<{ status?: string; start?: GraphScheduleTime; end?: GraphScheduleTime }>;
    workingHours?: GraphWorkingHours;
  }>;
}

/** Statuses that block time, lower-cased (Graph's own examples capitalise them). */
const blocking = new Set(['busy', 'tentative', 'oof', 'workingelsewhere']);

/** Graph's finest availability view; the items, not the view, are what is read. */
const viewIntervalMinutes = 5;

/** 20 people's items over a month fit many times over; more is a server to stop reading. */
export const maxScheduleBytes = 4 * 1024 * 1024;

export async function graphSchedules(
  client: GraphClient,
  account: MicrosoftAccount,
  emails: readonly string[],
  window: TimeWindow,
): Promise<Map<string, ToldBusy>> {
  const known = new Map<string, ToldBusy>();
  if (emails.length === 0) return known;
  // Sent with `Prefer: outlook.timezone="UTC"`, as every write: the answer's times are UTC.
  const utc = (instant: Temporal.Instant) => ({
    dateTime: instant.toString({ smallestUnit: 'second' }).slice(0, 19),
    timeZone: 'UTC',
  });
  const answer = await client.write<GraphSchedules>(
    account,
    '/me/calendar/getSchedule',
    {
      method: 'POST',
      body: {
        schedules: emails,
        startTime: utc(window.start),
        endTime: utc(window.end),
        availabilityViewInterval: viewIntervalMinutes,
      },
    },
    maxScheduleBytes,
  );
  for (const schedule of answer?.value ?? []) {
    if (schedule.scheduleId === undefined || schedule.error !== undefined) continue;
    const busy = spansOf(schedule.scheduleItems ?? []);
    if (busy === undefined) continue;
    const workingHours = hoursOf(schedule.workingHours);
    known.set(schedule.scheduleId.toLowerCase(), {
      busy,
      ...(workingHours === undefined ? {} : { workingHours }),
    });
  }
  return known;
}

/** undefined when an item's status or times cannot be read: that person is not known rather than shown free. */
function spansOf(
  items: NonNullable<NonNullable<GraphSchedules['value']>[number]['scheduleItems']>,
): BusySpan[] | undefined {
  const spans: BusySpan[] = [];
  for (const item of items) {
    const status = item.status?.toLowerCase() ?? '';
    if (status === 'free') continue;
    if (!blocking.has(status)) return undefined;
    const start = instantOf(item.start);
    const end = instantOf(item.end);
    if (start === undefined || end === undefined) return undefined;
    if (Temporal.Instant.compare(start, end) < 0)
      spans.push({ startNs: start.epochNanoseconds, endNs: end.epochNanoseconds });
  }
  return spans;
}

function instantOf(time: GraphScheduleTime | undefined): Temporal.Instant | undefined {
  if (time?.dateTime === undefined || time.timeZone === undefined) return undefined;
  try {
    return Temporal.PlainDateTime.from(time.dateTime).toZonedDateTime(time.timeZone).toInstant();
  } catch {
    return undefined;
  }
}

/** Graph's working hours as ours; undefined when absent or not plain enough to hold anyone to. */
function hoursOf(hours: GraphWorkingHours | undefined): WorkingHours | undefined {
  const { daysOfWeek, startTime, endTime, timeZone } = hours ?? {};
  if (!Array.isArray(daysOfWeek) || typeof startTime !== 'string' || typeof endTime !== 'string')
    return undefined;
  const zone = typeof timeZone?.name === 'string' ? resolveTzid(timeZone.name) : undefined;
  if (zone === undefined) return undefined;
  try {
    return parseWorkingHours({
      days: daysOfWeek.map((day) => String(day).toLowerCase()),
      // HH:MM of HH:MM:SS.fffffff: Outlook's hours are on whole minutes.
      start: startTime.slice(0, 5),
      end: endTime.slice(0, 5),
      timeZone: zone,
    });
  } catch {
    return undefined;
  }
}
