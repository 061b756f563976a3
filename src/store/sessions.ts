import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export async function insertSession(
  db: Db,
  row: { tokenHash: string; userId: string; now: number; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      token_hash: row.tokenHash,
      user_id: row.userId,
      created_at: row.now,
      expires_at: row.expiresAt,
      last_seen_at: row.now,
    })
    .execute();
}

export async function findLiveSession(
  db: Db,
  tokenHash: string,
  now: number,
): Promise<{ userId: string; lastSeenAt: number } | undefined> {
  const row = await db
    .selectFrom('sessions')
    .select(['user_id', 'last_seen_at'])
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row && { userId: row.user_id, lastSeenAt: row.last_seen_at };
}

export async function touchSession(db: Db, tokenHash: string, now: number): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: now }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

export async function deleteUserSessions(db: Db, userId: string, exceptTokenHash?: string): Promise<void> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (exceptTokenHash !== undefined) query = query.where('token_hash', '!=', exceptTokenHash);
  await query.execute();
}

export async function deleteExpiredSessions(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
