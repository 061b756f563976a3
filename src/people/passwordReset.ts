/**
 * Password reset by single-use link: asked for by address (no answer says whether an account
 * uses it) or issued by the operator; the link expires, works once, and using it ends every
 * session of the account and every other reset link for it.
 */
import type { Kysely } from 'kysely';
import { AppError } from '../errors.ts';
import { type Clock, epochMs } from '../lib/clock.ts';
import { randomToken, tokenHash } from '../lib/secrets.ts';
import {
  consumeToken,
  countUserTokensSince,
  findUsableToken,
  insertOneTimeToken,
  revokeUserTokens,
} from '../store/oneTimeTokens.ts';
import type { Database } from '../store/schema.ts';
import { deleteUserSessions } from '../store/sessions.ts';
import { clearAddressFailures } from '../store/signInFailures.ts';
import { findUserByEmailKey, findUserById, updateUser } from '../store/users.ts';
import { emailKey, parseEmail } from './email.ts';
import { linkInvalid } from './onboarding.ts';
import { checkPasswordRules, hashPassword } from './passwords.ts';

type Db = Kysely<Database>;

export const passwordResetTtlMs = 30 * 60_000;

/** Links asked for by address: at most this many per account in the window (no mail bombing). */
export const resetThrottle = { maxLinks: 3, windowMs: 15 * 60_000 };

/** A fresh link and whom it is for. */
export interface PasswordReset {
  token: string;
  email: string;
  name: string;
  expiresAt: number;
}

/** A new link for the account; the account's earlier links stop working. */
async function issue(
  db: Db,
  user: { id: string; email: string; name: string },
  now: number,
): Promise<PasswordReset> {
  await revokeUserTokens(db, 'password_reset', user.id, now);
  const token = randomToken();
  const expiresAt = now + passwordResetTtlMs;
  await insertOneTimeToken(
    db,
    {
      tokenHash: tokenHash(token),
      purpose: 'password_reset',
      workspaceId: null,
      email: null,
      role: null,
      createdBy: null,
      expiresAt,
      userId: user.id,
    },
    now,
  );
  return { token, email: user.email, name: user.name, expiresAt };
}

/**
 * Someone asks for a link by address. Undefined when no account uses it or the account had its
 * share of links in the window. The same lookups run either way (for an unknown address they
 * match nothing) and mail goes out after the answer, so neither the answer nor its time tells
 * whether an account uses the address.
 */
export async function requestPasswordReset(
  db: Db,
  clock: Clock,
  email: unknown,
): Promise<PasswordReset | undefined> {
  const { key } = parseEmail(email);
  const now = epochMs(clock);
  return db.transaction().execute(async (trx) => {
    const user = await findUserByEmailKey(trx, key);
    const recent = await countUserTokensSince(
      trx,
      'password_reset',
      user?.id ?? '',
      now - resetThrottle.windowMs,
    );
    if (user === undefined || recent >= resetThrottle.maxLinks) return undefined;
    return issue(trx, user, now);
  });
}

/** The operator issues a link for an account (CLI); unthrottled, it says who it is for. */
export async function issuePasswordReset(db: Db, clock: Clock, userId: string): Promise<PasswordReset> {
  const now = epochMs(clock);
  return db.transaction().execute(async (trx) => {
    const user = await findUserById(trx, userId);
    if (user === undefined) throw new AppError('not_found', 'No such account.');
    return issue(trx, user, now);
  });
}

/** The address a usable link is for (shown on the reset page); `not_found` otherwise. */
export async function findPasswordReset(db: Db, clock: Clock, token: unknown): Promise<{ email: string }> {
  if (typeof token !== 'string') throw linkInvalid();
  const entry = await findUsableToken(db, tokenHash(token), 'password_reset', epochMs(clock));
  const user = entry?.userId ? await findUserById(db, entry.userId) : undefined;
  if (user === undefined) throw linkInvalid();
  return { email: user.email };
}

/**
 * Sets the new password, using up the link; every session and other link of the account ends,
 * and the address's failed sign-ins are forgotten.
 */
export async function completePasswordReset(
  db: Db,
  clock: Clock,
  token: unknown,
  password: unknown,
): Promise<void> {
  await findPasswordReset(db, clock, token);
  const hash = await hashPassword(checkPasswordRules(password));
  const key = tokenHash(token as string);
  const now = epochMs(clock);
  await db.transaction().execute(async (trx) => {
    const entry = await findUsableToken(trx, key, 'password_reset', now);
    if (entry?.userId == null || !(await consumeToken(trx, key, now))) throw linkInvalid();
    await updateUser(trx, entry.userId, { password_hash: hash }, now);
    await deleteUserSessions(trx, entry.userId);
    await revokeUserTokens(trx, 'password_reset', entry.userId, now);
    // Whoever forgot the password likely tripped the sign-in throttle; the link proved the mailbox.
    const user = await findUserById(trx, entry.userId);
    if (user !== undefined) await clearAddressFailures(trx, emailKey(user.email));
  });
}
