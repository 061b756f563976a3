import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  await db.schema
    .createTable('connected_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('credentials', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_reason', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('connected_accounts_owner')
    .on('connected_accounts')
    .columns(['user_id', 'workspace_id'])
    .execute();

  await db.schema
    .createTable('calendars')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) =>
      c.notNull().references('connected_accounts.id').onDelete('cascade'),
    )
    .addColumn('provider_calendar_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text')
    .addColumn('color', 'text')
    .addColumn('is_primary', t.flag, (c) => c.notNull())
    .addColumn('access', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('calendars_account_provider_id', ['account_id', 'provider_calendar_id'])
    .execute();

  // The state of a provider connect flow in progress: who started it, and the PKCE verifier.
  await db.schema
    .createTable('oauth_states')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text')
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .execute();
}
