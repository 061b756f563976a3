import type { Kysely } from 'kysely';
import type { Database, UsersTable } from './schema.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  createdAt: number;
}

type Db = Kysely<Database>;

const toUser = (row: Pick<UsersTable, 'id' | 'email' | 'name' | 'created_at'>): User => ({
  id: row.id,
  email: row.email,
  name: row.name,
  createdAt: row.created_at,
});

export async function insertUser(db: Db, row: UsersTable): Promise<User> {
  await db.insertInto('users').values(row).execute();
  return toUser(row);
}

export async function findUserById(db: Db, id: string): Promise<User | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'email', 'name', 'created_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toUser(row);
}

export async function findUserByEmailKey(db: Db, emailKey: string): Promise<User | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'email', 'name', 'created_at'])
    .where('email_key', '=', emailKey)
    .executeTakeFirst();
  return row && toUser(row);
}

export async function findCredentials(
  db: Db,
  emailKey: string,
): Promise<{ id: string; passwordHash: string } | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'password_hash'])
    .where('email_key', '=', emailKey)
    .executeTakeFirst();
  return row && { id: row.id, passwordHash: row.password_hash };
}

export async function passwordHashOf(db: Db, userId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select('password_hash')
    .where('id', '=', userId)
    .executeTakeFirst();
  return row?.password_hash;
}

export async function updateUser(
  db: Db,
  id: string,
  changes: Partial<Pick<UsersTable, 'name' | 'password_hash'>>,
  now: number,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
