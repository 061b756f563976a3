/**
 * The room list of a workspace, kept by its admins: added and removed by hand, or filled from
 * the rooms a provider lists to an admin's own accounts. Each change is authorised against the
 * actor's role and audited in the same transaction.
 */
import type { Kysely } from 'kysely';
import { maxRoomFeatures, parseCapacity, parseFeatures, parseRoomName, type Room } from '../domain/rooms.ts';
import { AppError, invalidField, isAppError } from '../errors.ts';
import { epochMs } from '../lib/clock.ts';
import { recordAudit } from '../store/audit.ts';
import { countRooms, deleteRoom, roomsOf, saveRoom } from '../store/rooms.ts';
import type { Database } from '../store/schema.ts';
import type { AdministrationDeps } from './administrationPorts.ts';
import { emailKey, parseEmail } from './email.ts';
import { type Actor, actorId, requireAdmin } from './workspaceAccess.ts';

type Db = Kysely<Database>;
type Store = Pick<AdministrationDeps, 'db' | 'clock'>;

/** Enough for a large office; a list a tool can read whole. */
export const maxRoomsPerWorkspace = 500;

async function assertRoomForMore(db: Db, workspaceId: string, adding: number): Promise<void> {
  if ((await countRooms(db, workspaceId)) + adding > maxRoomsPerWorkspace)
    throw invalidField('email', `A workspace holds at most ${maxRoomsPerWorkspace} rooms.`);
}

/** Adds a room as an admin typed it, or replaces the one with its address. */
export async function addRoom(
  { db, clock }: Store,
  workspaceId: string,
  input: { email: unknown; name: unknown; capacity: unknown; features: unknown },
  actor: Actor,
): Promise<void> {
  const { email, key } = parseEmail(input.email);
  const room = {
    email,
    key,
    name: parseRoomName(input.name, 'name'),
    features: parseFeatures(input.features, 'features'),
    source: 'admin',
  };
  const capacity = parseCapacity(input.capacity, 'capacity');
  const now = epochMs(clock);
  await db.transaction().execute(async (trx) => {
    await requireAdmin(trx, workspaceId, actor);
    if ((await roomsOf(trx, workspaceId, [key])).length === 0) await assertRoomForMore(trx, workspaceId, 1);
    await saveRoom(trx, workspaceId, { ...room, ...(capacity === undefined ? {} : { capacity }) }, now);
    await recordAudit(trx, {
      workspaceId,
      actorUserId: actorId(actor),
      action: 'room.added',
      targetUserId: null,
      detail: { email, name: room.name },
      at: now,
    });
  });
}

export async function removeRoom(
  { db, clock }: Store,
  workspaceId: string,
  email: unknown,
  actor: Actor,
): Promise<void> {
  const address = typeof email === 'string' ? email.trim() : '';
  const key = emailKey(address);
  const now = epochMs(clock);
  await db.transaction().execute(async (trx) => {
    await requireAdmin(trx, workspaceId, actor);
    if (!(await deleteRoom(trx, workspaceId, key))) throw new AppError('not_found', 'No such room.');
    await recordAudit(trx, {
      workspaceId,
      actorUserId: actorId(actor),
      action: 'room.removed',
      targetUserId: null,
      detail: { email: address },
      at: now,
    });
  });
}

/**
 * Fills the list from the rooms the actor's own accounts can list (`listed`, asked only once
 * the actor is known to administer the workspace): new rooms are added, known ones updated; a
 * room an admin added by hand keeps what the admin said. Resolves with how many were listed and
 * how many accounts failed to list theirs.
 */
export async function importRooms(
  { db, clock }: Store,
  workspaceId: string,
  actor: Actor,
  list: () => Promise<{ rooms: Array<Room & { source: string }>; failed: number }>,
): Promise<{ listed: number; failed: number }> {
  await requireAdmin(db, workspaceId, actor);
  const listed = await list();
  const byKey = new Map<string, Room & { source: string; key: string }>();
  for (const room of listed.rooms) {
    // A provider's text is stored as it is given, within the same bounds as an admin's.
    try {
      const { email, key } = parseEmail(room.email);
      const capacity = parseCapacity(room.capacity, 'capacity');
      byKey.set(key, {
        email,
        key,
        name: parseRoomName(room.name, 'name'),
        features: parseFeatures(room.features.slice(0, maxRoomFeatures), 'features'),
        source: room.source,
        ...(capacity === undefined ? {} : { capacity }),
      });
    } catch (error) {
      // A room the provider describes in a way the list cannot hold is left out.
      if (!isAppError(error)) throw error;
    }
  }
  const now = epochMs(clock);
  await db.transaction().execute(async (trx) => {
    await requireAdmin(trx, workspaceId, actor);
    const present = await roomsOf(trx, workspaceId);
    const kept = new Set(present.filter((r) => r.source === 'admin').map((r) => r.key));
    const known = new Set(present.map((r) => r.key));
    const fresh = [...byKey.values()].filter((room) => !kept.has(room.key));
    await assertRoomForMore(trx, workspaceId, fresh.filter((room) => !known.has(room.key)).length);
    for (const room of fresh) await saveRoom(trx, workspaceId, room, now);
    await recordAudit(trx, {
      workspaceId,
      actorUserId: actorId(actor),
      action: 'rooms.imported',
      targetUserId: null,
      detail: { count: fresh.length },
      at: now,
    });
  });
  return { listed: byKey.size, failed: listed.failed };
}
