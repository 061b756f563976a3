/** The shared per-grant request counts on PostgreSQL: one atomic upsert per claim of requests (auth/grantBudget.ts). */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** The length of one budget window; windows start at multiples of it. */
export const budgetWindowMs = 60_000;

/** Counts `requests` requests of the grant in the window starting at `windowStart`; returns the window's count. */
export async function countGrantRequests(
  db: Db,
  grantId: string,
  windowStart: number,
  requests: number,
): Promise<number> {
  const row = await db
    .insertInto('grant_budget_windows')
    .values({ grant_id: grantId, window_start: windowStart, requests })
    .onConflict((c) =>
      c.columns(['grant_id', 'window_start']).doUpdateSet((eb) => ({
        requests: eb('grant_budget_windows.requests', '+', requests),
      })),
    )
    .returning('requests')
    .executeTakeFirstOrThrow();
  return Number(row.requests);
}

/** Removes the windows that have ended. */
export async function deletePastBudgetWindows(db: Db, now: number): Promise<void> {
  await db
    .deleteFrom('grant_budget_windows')
    .where('window_start', '<=', now - budgetWindowMs)
    .execute();
}
