/**
 * Periodic clean-up of what has expired: sessions, sign-in failures, one-time links, connect
 * flows, the authorization server's codes, tokens and interactions, old idempotency keys and
 * ended windows of the shared request budget.
 */
import type { Kysely } from 'kysely';
import { type Clock, epochMs } from '../lib/clock.ts';
import { deleteExpiredOAuthStates } from '../store/connectedAccounts.ts';
import { deletePastBudgetWindows } from '../store/grantBudgetWindows.ts';
import { deleteExpiredRecords } from '../store/oauthRecords.ts';
import { deleteSpentTokens } from '../store/oneTimeTokens.ts';
import type { Database } from '../store/schema.ts';
import { deleteExpiredSessions } from '../store/sessions.ts';
import { pruneFailures } from '../store/signInFailures.ts';
import { deleteExpiredWriteKeys } from '../store/writeKeys.ts';
import { signInThrottle } from './accounts.ts';
import { resetThrottle } from './passwordReset.ts';

export const sweepIntervalMs = 60 * 60 * 1000;

export async function sweep(db: Kysely<Database>, clock: Clock): Promise<void> {
  const now = epochMs(clock);
  await deleteExpiredSessions(db, now);
  await pruneFailures(db, now - signInThrottle.windowMs);
  await deleteSpentTokens(db, now, now - resetThrottle.windowMs);
  await deleteExpiredOAuthStates(db, now);
  await deleteExpiredRecords(db, now);
  await deleteExpiredWriteKeys(db, now);
  await deletePastBudgetWindows(db, now);
}
