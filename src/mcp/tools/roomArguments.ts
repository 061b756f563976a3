/** The room arguments of the tools: what a meeting asks of a room, and rooms to book by address. */
import { namedRooms } from '../../calendars/rooms.ts';
import type { GuestInput } from '../../domain/guests.ts';
import { maxRoomCapacity, maxRoomFeatures } from '../../domain/rooms.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import { parseEmail } from '../../people/email.ts';
import type { ToolContext } from '../tool.ts';

export const maxBookedRooms = 5;

/** minCapacity and features (every one required), as list_rooms and find_meeting_times take them. */
export const roomNeedsProperties = {
  minCapacity: { type: 'integer', minimum: 1, maximum: maxRoomCapacity },
  features: { type: 'array', maxItems: maxRoomFeatures, items: { type: 'string', maxLength: 40 } },
} as const;

export const roomSchema = closedObject(
  {
    email: { type: 'string' },
    name: { type: 'string' },
    capacity: { type: 'integer' },
    features: { type: 'array', items: { type: 'string' } },
  },
  ['email', 'name', 'features'],
);

export const bookedRoomsSchema = {
  type: 'array',
  maxItems: maxBookedRooms,
  items: { type: 'string' },
} as const;

/** The rooms named, each a room of the workspace, as guests to add (the scope is checked first). */
export async function roomGuests(
  addresses: readonly string[] | undefined,
  field: string,
  { calendars, principal }: Pick<ToolContext, 'calendars' | 'principal'>,
): Promise<GuestInput[]> {
  if (addresses === undefined) return [];
  const parsed = addresses.map((address) => parseEmail(address, field));
  const rooms = await namedRooms(calendars, principal, parsed, field);
  return rooms.map((room) => ({ email: room.email, name: room.name, room: true }));
}
