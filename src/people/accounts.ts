/** People's accounts: creation, sign-in with throttling, profile and password changes. */
import type { Kysely } from 'kysely';
import { AppError, invalidField } from '../errors.ts';
import { type Clock, epochMs } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { hasControlCharacters, requiredText } from '../lib/text.ts';
import type { Database } from '../store/schema.ts';
import { deleteUserSessions } from '../store/sessions.ts';
import { clearFailures, failuresSince, recordFailure } from '../store/signInFailures.ts';
import {
  findCredentials,
  findUserByEmailKey,
  insertUser,
  passwordHashOf,
  type User,
  updateUser,
} from '../store/users.ts';
import { emailKey, parseEmail } from './email.ts';
import { checkPasswordRules, decoyHash, hashPassword, verifyPassword } from './passwords.ts';

type Db = Kysely<Database>;

/**
 * Five wrong passwords for one address within 15 minutes lock it, for the rest of that window, to
 * every client that has failed on it in the window: the owner, signing in from elsewhere, still
 * gets in. A client is the address the request came from (behind TRUST_PROXY, the one the proxy
 * reports, which a client may choose), so past `maxFailuresFromAll` the address is locked to all.
 */
export const signInThrottle = { maxFailures: 5, maxFailuresFromAll: 50, windowMs: 15 * 60 * 1000 };

/** When the address opens again for this client, or undefined when it is open now. */
async function lockedUntil(
  db: Db,
  subject: string,
  client: string,
  now: number,
): Promise<number | undefined> {
  const { maxFailures, maxFailuresFromAll, windowMs } = signInThrottle;
  const since = now - windowMs;
  const failures = await failuresSince(db, subject, since);
  if (failures.length < maxFailures) return undefined;
  const dropsBelow = (limit: number) => failures[failures.length - limit]! + windowMs;
  if (failures.length >= maxFailuresFromAll) return dropsBelow(maxFailuresFromAll);
  const own = await failuresSince(db, subject, since, client);
  return own.length === 0 ? undefined : Math.min(dropsBelow(maxFailures), own[own.length - 1]! + windowMs);
}

export interface NewUser {
  email: unknown;
  password: unknown;
  name?: unknown;
}

/** Validates and hashes outside any transaction; the caller inserts with `insertNewUser`. */
export async function prepareUser(input: NewUser, now: number) {
  const { email, key } = parseEmail(input.email);
  const password = checkPasswordRules(input.password);
  const name =
    input.name === undefined || input.name === ''
      ? email.split('@')[0]!
      : requiredText(input.name, 'name', 'a name');
  return {
    id: newId('usr'),
    email,
    email_key: key,
    name,
    password_hash: await hashPassword(password),
    created_at: now,
    updated_at: now,
  };
}

export async function insertNewUser(db: Db, row: Awaited<ReturnType<typeof prepareUser>>): Promise<User> {
  if ((await findUserByEmailKey(db, row.email_key)) !== undefined) {
    throw new AppError('already_exists', 'An account with this e-mail address already exists.', {
      details: { field: 'email' },
    });
  }
  return insertUser(db, row);
}

export async function createUser(db: Db, clock: Clock, input: NewUser): Promise<User> {
  const row = await prepareUser(input, epochMs(clock));
  return db.transaction().execute((trx) => insertNewUser(trx, row));
}

/**
 * Checks an e-mail and password from a client (see signInThrottle). Unknown addresses cost the
 * same as wrong passwords and give the same answer, so sign-in is no oracle for which addresses
 * have accounts.
 */
export async function authenticate(
  db: Db,
  clock: Clock,
  email: unknown,
  password: unknown,
  client: string,
): Promise<string> {
  if (typeof email !== 'string' || email.trim() === '')
    throw invalidField('email', 'Enter your e-mail address.');
  // No account has such an address: refusing it tells nothing, and keeps NUL away from the database.
  if (hasControlCharacters(email)) throw invalidField('email', 'Enter a valid e-mail address.');
  if (typeof password !== 'string' || password === '') throw invalidField('password', 'Enter your password.');
  const subject = emailKey(email);
  const now = epochMs(clock);
  const unlockAt = await lockedUntil(db, subject, client, now);
  if (unlockAt !== undefined) {
    const retryAfter = Math.max(1, Math.ceil((unlockAt - now) / 1000));
    throw new AppError('rate_limited', 'Too many failed sign-in attempts. Try again later.', { retryAfter });
  }
  const credentials = await findCredentials(db, subject);
  const ok = await verifyPassword(password, credentials?.passwordHash ?? (await decoyHash()));
  if (!ok || credentials === undefined) {
    await recordFailure(db, subject, client, now);
    throw new AppError('invalid_credentials', 'The e-mail address or password is not right.');
  }
  await clearFailures(db, subject, client);
  return credentials.id;
}

export async function updateName(db: Db, clock: Clock, userId: string, name: unknown): Promise<void> {
  await updateUser(db, userId, { name: requiredText(name, 'name', 'a name') }, epochMs(clock));
}

/** Changes the password and signs out every other session of the user. */
export async function changePassword(
  db: Db,
  clock: Clock,
  userId: string,
  input: { current: unknown; next: unknown; keepSessionHash: string },
): Promise<void> {
  const stored = await passwordHashOf(db, userId);
  if (stored === undefined) throw new AppError('not_found', 'No such account.');
  if (typeof input.current !== 'string' || !(await verifyPassword(input.current, stored))) {
    throw new AppError('invalid_credentials', 'The current password is not right.', {
      details: { field: 'currentPassword' },
    });
  }
  const hash = await hashPassword(checkPasswordRules(input.next, 'newPassword'));
  await db.transaction().execute(async (trx) => {
    await updateUser(trx, userId, { password_hash: hash }, epochMs(clock));
    await deleteUserSessions(trx, userId, input.keepSessionHash);
  });
}
