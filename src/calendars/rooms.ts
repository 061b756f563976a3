/**
 * The rooms a grant may find and book: those of its workspace, and only with `calendar:rooms`.
 * A room is named by its address; one that is not on the workspace's list (another
 * workspace's included) is `unknown_room`, the same answer either way.
 */
import { fittingRooms, type Room, type RoomNeeds } from '../domain/rooms.ts';
import { AppError } from '../errors.ts';
import type { Principal } from '../policy/principal.ts';
import { roomsOf } from '../store/rooms.ts';
import type { CalendarDeps } from './calendarDeps.ts';

export function requireRoomsScope(principal: Principal): void {
  if (!principal.scopes.includes('calendar:rooms'))
    throw new AppError(
      'insufficient_scope',
      'Rooms need the scope calendar:rooms, which this grant does not hold.',
    );
}

/** The workspace's rooms that fit the needs, smallest first. */
export async function workspaceRooms(
  deps: Pick<CalendarDeps, 'db'>,
  principal: Principal,
  needs: RoomNeeds,
): Promise<Room[]> {
  requireRoomsScope(principal);
  const rooms = await roomsOf(deps.db, principal.workspaceId);
  return fittingRooms(rooms, needs).map(({ email, name, capacity, features }) => ({
    email,
    name,
    ...(capacity === undefined ? {} : { capacity }),
    features,
  }));
}

/** The rooms named by address, each on the workspace's list; `field` names the argument for errors. */
export async function namedRooms(
  deps: Pick<CalendarDeps, 'db'>,
  principal: Principal,
  addresses: ReadonlyArray<{ email: string; key: string }>,
  field: string,
): Promise<Room[]> {
  requireRoomsScope(principal);
  const listed = new Map(
    (
      await roomsOf(
        deps.db,
        principal.workspaceId,
        addresses.map((a) => a.key),
      )
    ).map((room) => [room.key, room]),
  );
  return addresses.map(({ email, key }) => {
    const room = listed.get(key);
    if (room === undefined)
      throw new AppError(
        'unknown_room',
        `${email} is not a room of this workspace: rooms come from list_rooms.`,
        {
          details: { field },
        },
      );
    return { email: room.email, name: room.name, features: room.features };
  });
}
