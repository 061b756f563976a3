/** The tools this server offers, in the order they are listed. */
import type { ToolDefinition } from '../tool.ts';
import { getAvailability } from './getAvailability.ts';
import { listCalendars } from './listCalendars.ts';
import { listEvents } from './listEvents.ts';
import { searchEvents } from './searchEvents.ts';

export const tools: readonly ToolDefinition[] = [listCalendars, searchEvents, listEvents, getAvailability];
