/** The rooms of each workspace, by the case-insensitive key of their address. */
import type { Kysely } from 'kysely';
import type { Room } from '../domain/rooms.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface StoredRoom extends Room {
  /** The case-insensitive key of its address. */
  key: string;
  /** `admin`, or the provider it was filled from. */
  source: string;
}

const toRoom = (row: {
  email_key: string;
  email: string;
  name: string;
  capacity: number | null;
  features: string;
  source: string;
}): StoredRoom => ({
  key: row.email_key,
  email: row.email,
  name: row.name,
  ...(row.capacity === null ? {} : { capacity: Number(row.capacity) }),
  features: JSON.parse(row.features) as string[],
  source: row.source,
});

/** A workspace's rooms by name; `keys` narrows them to those addresses. */
export async function roomsOf(db: Db, workspaceId: string, keys?: readonly string[]): Promise<StoredRoom[]> {
  if (keys !== undefined && keys.length === 0) return [];
  let query = db.selectFrom('workspace_rooms').selectAll().where('workspace_id', '=', workspaceId);
  if (keys !== undefined) query = query.where('email_key', 'in', keys);
  const rows = await query.orderBy('name').orderBy('email_key').execute();
  return rows.map(toRoom);
}

export async function countRooms(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('workspace_rooms')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Adds the room, or replaces the one with the same address. */
export async function saveRoom(
  db: Db,
  workspaceId: string,
  room: Room & { key: string; source: string },
  now: number,
): Promise<void> {
  const values = {
    email: room.email,
    name: room.name,
    capacity: room.capacity ?? null,
    features: JSON.stringify(room.features),
    source: room.source,
    updated_at: now,
  };
  await db
    .insertInto('workspace_rooms')
    .values({ workspace_id: workspaceId, email_key: room.key, ...values })
    .onConflict((oc) => oc.columns(['workspace_id', 'email_key']).doUpdateSet(values))
    .execute();
}

/** Whether there was such a room to remove. */
export async function deleteRoom(db: Db, workspaceId: string, key: string): Promise<boolean> {
  const result = await db
    .deleteFrom('workspace_rooms')
    .where('workspace_id', '=', workspaceId)
    .where('email_key', '=', key)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
