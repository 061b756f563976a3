/** `list_rooms`: the workspace's rooms that fit a meeting, to find and book. */
import { workspaceRooms } from '../../calendars/rooms.ts';
import { roomNeeds } from '../../domain/rooms.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import { roomNeedsProperties, roomSchema } from './roomArguments.ts';

export const listRooms: ToolDefinition = {
  name: 'list_rooms',
  title: 'List rooms',
  description:
    'Rooms with at least minCapacity seats and every feature, smallest first; book by email (rooms of create_event, update_event).',
  scopes: ['calendar:rooms'],
  inputSchema: closedObject(roomNeedsProperties),
  outputSchema: closedObject(
    { ok: { type: 'boolean', const: true }, rooms: { type: 'array', items: roomSchema } },
    ['ok', 'rooms'],
  ),
  annotations: { readOnlyHint: true, openWorldHint: false },

  async run(args: { minCapacity?: number; features?: string[] }, { principal, calendars }) {
    return { structured: { ok: true, rooms: await workspaceRooms(calendars, principal, roomNeeds(args)) } };
  },
};
