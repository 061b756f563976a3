/**
 * Failed sign-ins, kept in the database so throttling holds across instances. Each failure is
 * two rows: one under the address (an e-mail key) and one under the address from that client,
 * `key|client`, so both counts are plain lookups of one subject.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

const fromClient = (subject: string, client: string) => `${subject}|${client}`;

export async function recordFailure(db: Db, subject: string, client: string, at: number): Promise<void> {
  await db
    .insertInto('sign_in_failures')
    .values([
      { subject, at },
      { subject: fromClient(subject, client), at },
    ])
    .execute();
}

/** The failures since `since` for the address (from that client, when named), oldest first. */
export async function failuresSince(
  db: Db,
  subject: string,
  since: number,
  client?: string,
): Promise<number[]> {
  const rows = await db
    .selectFrom('sign_in_failures')
    .select('at')
    .where('subject', '=', client === undefined ? subject : fromClient(subject, client))
    .where('at', '>', since)
    .orderBy('at')
    .execute();
  return rows.map((r) => r.at);
}

/**
 * Forgets the failures of this client on the address (after it signed in). Those of the address
 * age out: another client that failed stays throttled.
 */
export async function clearFailures(db: Db, subject: string, client: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('subject', '=', fromClient(subject, client)).execute();
}

/** Forgets every failure on the address, from every client (its owner proved who they are). */
export async function clearAddressFailures(db: Db, subject: string): Promise<void> {
  const prefix = fromClient(subject, '');
  await db
    .deleteFrom('sign_in_failures')
    .where((eb) =>
      eb.or([
        eb('subject', '=', subject),
        eb(sql<string>`substr(subject, 1, ${prefix.length})`, '=', prefix),
      ]),
    )
    .execute();
}

export async function pruneFailures(db: Db, before: number): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('at', '<=', before).execute();
}
