/** Single-use links (first-owner set-up, invitations), stored only as hashes. */
import type { Kysely } from 'kysely';
import type { Role } from '../policy/roles.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export type TokenPurpose = 'first_owner' | 'invitation';

export interface OneTimeToken {
  tokenHash: string;
  purpose: TokenPurpose;
  workspaceId: string | null;
  email: string | null;
  role: Role | null;
  createdBy: string | null;
  expiresAt: number;
}

export async function insertOneTimeToken(db: Db, token: OneTimeToken, now: number): Promise<void> {
  await db
    .insertInto('one_time_tokens')
    .values({
      token_hash: token.tokenHash,
      purpose: token.purpose,
      workspace_id: token.workspaceId,
      email: token.email,
      role: token.role,
      created_by: token.createdBy,
      created_at: now,
      expires_at: token.expiresAt,
      used_at: null,
    })
    .execute();
}

export async function findUsableToken(
  db: Db,
  tokenHash: string,
  purpose: TokenPurpose,
  now: number,
): Promise<OneTimeToken | undefined> {
  const row = await db
    .selectFrom('one_time_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return (
    row && {
      tokenHash: row.token_hash,
      purpose: row.purpose as TokenPurpose,
      workspaceId: row.workspace_id,
      email: row.email,
      role: row.role as Role | null,
      createdBy: row.created_by,
      expiresAt: row.expires_at,
    }
  );
}

/** Marks the token used; false when another request used it first (the caller must then abort). */
export async function consumeToken(db: Db, tokenHash: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('one_time_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function revokeUnusedTokens(db: Db, purpose: TokenPurpose, now: number): Promise<void> {
  await db
    .updateTable('one_time_tokens')
    .set({ used_at: now })
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

/** Removes tokens that can no longer be used (spent or expired). */
export async function deleteSpentTokens(db: Db, now: number): Promise<void> {
  await db
    .deleteFrom('one_time_tokens')
    .where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', now)]))
    .execute();
}
