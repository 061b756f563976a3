/**
 * The organisation's rooms as Graph lists them (`GET /places/microsoft.graph.room`, which needs
 * Place.Read.All): address, name, capacity, and features from the room's tags, its devices and
 * wheelchair access.
 */
import type { Room } from '../../domain/rooms.ts';
import type { GraphClient } from './client.ts';
import type { MicrosoftAccount } from './session.ts';

interface GraphRoom {
  emailAddress?: string | null;
  displayName?: string | null;
  capacity?: number | null;
  tags?: string[] | null;
  audioDeviceName?: string | null;
  videoDeviceName?: string | null;
  displayDeviceName?: string | null;
  isWheelChairAccessible?: boolean | null;
}

const roomFields = [
  'emailAddress',
  'displayName',
  'capacity',
  'tags',
  'audioDeviceName',
  'videoDeviceName',
  'displayDeviceName',
  'isWheelChairAccessible',
].join(',');

export async function graphRooms(client: GraphClient, account: MicrosoftAccount): Promise<Room[]> {
  const rooms = await client.getAll<GraphRoom>(account, '/places/microsoft.graph.room', {
    $select: roomFields,
    $top: '100',
  });
  return rooms.flatMap((room) => {
    if (!room.emailAddress) return [];
    const features = [
      ...(room.tags ?? []),
      ...(room.audioDeviceName ? ['audio'] : []),
      ...(room.videoDeviceName ? ['video'] : []),
      ...(room.displayDeviceName ? ['display'] : []),
      ...(room.isWheelChairAccessible ? ['wheelchair'] : []),
    ];
    return [
      {
        email: room.emailAddress,
        name: room.displayName || room.emailAddress,
        ...(typeof room.capacity === 'number' && room.capacity > 0 ? { capacity: room.capacity } : {}),
        features,
      },
    ];
  });
}
