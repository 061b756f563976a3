/** Sign-in sessions: random bearer tokens in a cookie, stored only as hashes, expiring. */
import type { Kysely } from 'kysely';
import { type Clock, epochMs } from '../lib/clock.ts';
import { randomToken, tokenHash } from '../lib/secrets.ts';
import type { Database } from '../store/schema.ts';
import { deleteSession, findLiveSession, insertSession, touchSession } from '../store/sessions.ts';

type Db = Kysely<Database>;

// Writing last_seen_at on every request would turn every page view into a write.
const touchIntervalMs = 5 * 60 * 1000;

export async function startSession(db: Db, clock: Clock, userId: string, ttlHours: number): Promise<string> {
  const token = randomToken();
  const now = epochMs(clock);
  await insertSession(db, {
    tokenHash: tokenHash(token),
    userId,
    now,
    expiresAt: now + ttlHours * 3_600_000,
  });
  return token;
}

export async function resolveSession(db: Db, clock: Clock, token: string): Promise<string | undefined> {
  const hash = tokenHash(token);
  const now = epochMs(clock);
  const session = await findLiveSession(db, hash, now);
  if (session === undefined) return undefined;
  if (now - session.lastSeenAt > touchIntervalMs) await touchSession(db, hash, now);
  return session.userId;
}

export const endSession = (db: Db, token: string): Promise<void> => deleteSession(db, tokenHash(token));
