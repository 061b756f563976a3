/**
 * Idempotency keys of create_event, per person and client: which request a key was first used
 * for, the provider-side uid chosen for it, and the event once the provider confirmed it.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface WriteKey {
  userId: string;
  clientId: string;
  keyHash: string;
  requestHash: string;
  calendarId: string;
  uid: string;
  providerEventId: string | null;
  createdAt: number;
}

/** How long a key is remembered. */
export const writeKeyLifetimeMs = 30 * 24 * 60 * 60 * 1000;

export async function findWriteKey(
  db: Db,
  owner: { userId: string; clientId: string },
  keyHash: string,
): Promise<WriteKey | undefined> {
  const row = await db
    .selectFrom('write_keys')
    .selectAll()
    .where('user_id', '=', owner.userId)
    .where('client_id', '=', owner.clientId)
    .where('key_hash', '=', keyHash)
    .executeTakeFirst();
  return (
    row && {
      userId: row.user_id,
      clientId: row.client_id,
      keyHash: row.key_hash,
      requestHash: row.request_hash,
      calendarId: row.calendar_id,
      uid: row.uid,
      providerEventId: row.provider_event_id,
      createdAt: Number(row.created_at),
    }
  );
}

/** Claims the key for this request; false when it is taken already (the caller reads it). */
export async function claimWriteKey(db: Db, key: WriteKey): Promise<boolean> {
  const inserted = await db
    .insertInto('write_keys')
    .values({
      user_id: key.userId,
      client_id: key.clientId,
      key_hash: key.keyHash,
      request_hash: key.requestHash,
      calendar_id: key.calendarId,
      uid: key.uid,
      provider_event_id: key.providerEventId,
      created_at: key.createdAt,
    })
    .onConflict((oc) => oc.columns(['user_id', 'client_id', 'key_hash']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function confirmWriteKey(db: Db, key: WriteKey, providerEventId: string): Promise<void> {
  await db
    .updateTable('write_keys')
    .set({ provider_event_id: providerEventId })
    .where('user_id', '=', key.userId)
    .where('client_id', '=', key.clientId)
    .where('key_hash', '=', key.keyHash)
    .execute();
}

export async function deleteExpiredWriteKeys(db: Db, now: number): Promise<void> {
  await db
    .deleteFrom('write_keys')
    .where('created_at', '<', now - writeKeyLifetimeMs)
    .execute();
}
