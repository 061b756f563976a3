/** The authorization server's signing keys; private parts arrive sealed. Newest first. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface StoredSigningKey {
  kid: string;
  sealedJwk: string;
  createdAt: number;
  retiredAt: number | null;
}

export async function insertSigningKey(db: Db, key: Omit<StoredSigningKey, 'retiredAt'>): Promise<void> {
  await db
    .insertInto('oauth_signing_keys')
    .values({ kid: key.kid, private_jwk: key.sealedJwk, created_at: key.createdAt, retired_at: null })
    .execute();
}

/** Keys not retired, newest first: the first signs, the rest still verify. */
export async function activeSigningKeys(db: Db): Promise<StoredSigningKey[]> {
  const rows = await db
    .selectFrom('oauth_signing_keys')
    .selectAll()
    .where('retired_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('kid', 'desc')
    .execute();
  return rows.map((r) => ({
    kid: r.kid,
    sealedJwk: r.private_jwk,
    createdAt: r.created_at,
    retiredAt: r.retired_at,
  }));
}

/** Retires every active key whose kid starts with `prefix`, except the given ones. */
export async function retireSigningKeysExcept(
  db: Db,
  prefix: string,
  keep: readonly string[],
  now: number,
): Promise<number> {
  let query = db
    .updateTable('oauth_signing_keys')
    .set({ retired_at: now })
    .where('retired_at', 'is', null)
    .where('kid', 'like', `${prefix}%`);
  if (keep.length > 0) query = query.where('kid', 'not in', keep);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
