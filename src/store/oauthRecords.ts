/** Rows the authorization server persists. Ids arrive hashed and payloads sealed (see auth/storage.ts). */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface OAuthRecord {
  model: string;
  idHash: string;
  payload: string;
  grantId: string | null;
  uidHash: string | null;
  expiresAt: number | null;
}

export interface StoredRecord {
  idHash: string;
  payload: string;
  consumedAt: number | null;
}

export async function upsertRecord(db: Db, record: OAuthRecord): Promise<void> {
  const values = {
    payload: record.payload,
    grant_id: record.grantId,
    uid_hash: record.uidHash,
    expires_at: record.expiresAt,
  };
  await db
    .insertInto('oauth_records')
    .values({ model: record.model, id_hash: record.idHash, consumed_at: null, ...values })
    .onConflict((oc) => oc.columns(['model', 'id_hash']).doUpdateSet(values))
    .execute();
}

/** The live record (not expired at `now`), by id hash or by uid hash. */
export async function findRecord(
  db: Db,
  model: string,
  key: { idHash: string } | { uidHash: string },
  now: number,
): Promise<StoredRecord | undefined> {
  let query = db
    .selectFrom('oauth_records')
    .select(['id_hash', 'payload', 'consumed_at'])
    .where('model', '=', model)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
  query =
    'idHash' in key ? query.where('id_hash', '=', key.idHash) : query.where('uid_hash', '=', key.uidHash);
  const row = await query.executeTakeFirst();
  return row && { idHash: row.id_hash, payload: row.payload, consumedAt: row.consumed_at };
}

export async function consumeRecord(db: Db, model: string, idHash: string, now: number): Promise<void> {
  await db
    .updateTable('oauth_records')
    .set({ consumed_at: now })
    .where('model', '=', model)
    .where('id_hash', '=', idHash)
    .execute();
}

export async function deleteRecord(db: Db, model: string, idHash: string): Promise<void> {
  await db.deleteFrom('oauth_records').where('model', '=', model).where('id_hash', '=', idHash).execute();
}

/**
 * The records issued under a grant, of the models named. An Interaction names the grant it
 * started from too, and the consent that replaces that grant must still find it.
 */
export async function deleteRecordsOfGrant(
  db: Db,
  grantId: string,
  models: readonly string[],
): Promise<void> {
  await db
    .deleteFrom('oauth_records')
    .where('grant_id', '=', grantId)
    .where('model', 'in', [...models])
    .execute();
}

export async function deleteExpiredRecords(db: Db, now: number): Promise<number> {
  const result = await db
    .deleteFrom('oauth_records')
    .where('expires_at', 'is not', null)
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
