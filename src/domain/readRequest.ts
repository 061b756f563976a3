/**
 * The common part of every read (search_events, list_events, get_availability, GET /v1/events):
 * 1–20 calendar ids, a window, and optionally the user's IANA zone. Each surface names the
 * fields its own way; the rules are these. Pure.
 */

import { AppError, invalidField } from '../errors.ts';
import { isIanaZone } from './time/zones.ts';
import { parseWindow, type TimeWindow } from './window.ts';

export const maxCalendarsPerRequest = 20;
export const maxTimeZoneLength = 128;

export interface ReadRequest {
  calendarIds: string[];
  window: TimeWindow;
  /** The user's confirmed zone for floating and all-day times of calendars without one. */
  timeZone?: string;
}

export interface ReadInput {
  calendarIds: string[];
  start: string;
  end: string;
  timeZone?: string | undefined;
}

export interface FieldNames {
  calendarIds: string;
  start: string;
  end: string;
  timeZone: string;
}

export function parseReadRequest(input: ReadInput, names: FieldNames): ReadRequest {
  const calendarIds = [...new Set(input.calendarIds)];
  if (input.calendarIds.length === 0 || calendarIds.some((id) => id === '')) {
    throw invalidField(names.calendarIds, `${names.calendarIds} needs at least one calendar id.`);
  }
  if (input.calendarIds.length > maxCalendarsPerRequest) {
    throw new AppError(
      'too_many_calendars',
      `At most ${maxCalendarsPerRequest} calendars per request; split the calendars over several requests.`,
      { details: { field: names.calendarIds, max: maxCalendarsPerRequest } },
    );
  }
  const window = parseWindow(input.start, input.end, names);
  const { timeZone } = input;
  if (timeZone === undefined) return { calendarIds, window };
  if (timeZone.length < 1 || timeZone.length > maxTimeZoneLength || !isIanaZone(timeZone)) {
    throw new AppError(
      'invalid_time_zone',
      `${names.timeZone} must be an IANA time zone such as Europe/Berlin (1 to ${maxTimeZoneLength} characters).`,
      { details: { field: names.timeZone } },
    );
  }
  return { calendarIds, window, timeZone };
}
