/** Single-use links (first-owner set-up, invitations, password resets), stored only as hashes. */
import type { Kysely } from 'kysely';
import type { Role } from '../policy/roles.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export type TokenPurpose = 'first_owner' | 'invitation' | 'password_reset';

export interface OneTimeToken {
  tokenHash: string;
  purpose: TokenPurpose;
  workspaceId: string | null;
  email: string | null;
  role: Role | null;
  createdBy: string | null;
  expiresAt: number;
  /** The account it is for (password resets). */
  userId?: string | null;
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
      user_id: token.userId ?? null,
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
      userId: row.user_id,
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

/** Ends the unused links of one purpose for one account (a matching account or none: the same query). */
export async function revokeUserTokens(
  db: Db,
  purpose: TokenPurpose,
  userId: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('one_time_tokens')
    .set({ used_at: now })
    .where('purpose', '=', purpose)
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

/** How many links of one purpose were made for one account since `since`, used or not. */
export async function countUserTokensSince(
  db: Db,
  purpose: TokenPurpose,
  userId: string,
  since: number,
): Promise<number> {
  const row = await db
    .selectFrom('one_time_tokens')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('purpose', '=', purpose)
    .where('user_id', '=', userId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Removes tokens that can no longer be used (spent or expired), but none made after `keepSince`:
 * throttles count the recent ones, used or not.
 */
export async function deleteSpentTokens(db: Db, now: number, keepSince: number): Promise<void> {
  await db
    .deleteFrom('one_time_tokens')
    .where('created_at', '<=', keepSince)
    .where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', now)]))
    .execute();
}

/** An invitation not yet accepted, withdrawn or expired; identified by its token's hash. */
export interface PendingInvitation {
  tokenHash: string;
  email: string;
  role: Role;
  invitedBy: string | null;
  createdAt: number;
  expiresAt: number;
}

/** A workspace's pending invitations, newest first, with the address of whoever invited. */
export async function pendingInvitations(
  db: Db,
  workspaceId: string,
  now: number,
): Promise<PendingInvitation[]> {
  const rows = await db
    .selectFrom('one_time_tokens as t')
    .leftJoin('users as u', 'u.id', 't.created_by')
    .select(['t.token_hash', 't.email', 't.role', 't.created_at', 't.expires_at', 'u.email as inviter'])
    .where('t.purpose', '=', 'invitation')
    .where('t.workspace_id', '=', workspaceId)
    .where('t.used_at', 'is', null)
    .where('t.expires_at', '>', now)
    .orderBy('t.created_at', 'desc')
    .execute();
  return rows.map((r) => ({
    tokenHash: r.token_hash,
    email: r.email ?? '',
    role: r.role as Role,
    invitedBy: r.inviter,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  }));
}
