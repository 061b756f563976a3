import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A password-reset link names its account by id, not by address, and goes with the account.
  await db.schema
    .alterTable('one_time_tokens')
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .execute();
  await db.schema
    .createIndex('one_time_tokens_user')
    .on('one_time_tokens')
    .columns(['user_id', 'purpose'])
    .execute();
}
