/** Failed sign-ins per subject (an e-mail key), kept in the database so throttling holds across instances. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export async function recordFailure(db: Db, subject: string, at: number): Promise<void> {
  await db.insertInto('sign_in_failures').values({ subject, at }).execute();
}

/** The failures since `since`, oldest first (their times decide when the lock lifts). */
export async function failuresSince(db: Db, subject: string, since: number): Promise<number[]> {
  const rows = await db
    .selectFrom('sign_in_failures')
    .select('at')
    .where('subject', '=', subject)
    .where('at', '>', since)
    .orderBy('at')
    .execute();
  return rows.map((r) => r.at);
}

export async function clearFailures(db: Db, subject: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('subject', '=', subject).execute();
}

export async function pruneFailures(db: Db, before: number): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('at', '<=', before).execute();
}
