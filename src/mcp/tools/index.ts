/** The tools this server offers, in the order they are listed. */
import type { ToolDefinition } from '../tool.ts';
import { createEvent } from './createEvent.ts';
import { deleteEvent } from './deleteEvent.ts';
import { findMeetingTimes } from './findMeetingTimes.ts';
import { getAvailability } from './getAvailability.ts';
import { getCurrentTime } from './getCurrentTime.ts';
import { getEvent } from './getEvent.ts';
import { getEventGuests } from './getEventGuests.ts';
import { listCalendars } from './listCalendars.ts';
import { listEvents } from './listEvents.ts';
import { listRooms } from './listRooms.ts';
import { respondToEvent } from './respondToEvent.ts';
import { searchEvents } from './searchEvents.ts';
import { updateEvent } from './updateEvent.ts';

export const tools: readonly ToolDefinition[] = [
  listCalendars,
  getCurrentTime,
  searchEvents,
  listEvents,
  getEvent,
  getAvailability,
  findMeetingTimes,
  listRooms,
  getEventGuests,
  createEvent,
  updateEvent,
  deleteEvent,
  respondToEvent,
];
