import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  // What the authorization server persists (clients, codes, refresh tokens, sessions, grants):
  // keyed by a hash of the id (ids are bearer secrets), payload sealed.
  await db.schema
    .createTable('oauth_records')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id_hash', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid_hash', 'text')
    .addColumn('expires_at', t.time)
    .addColumn('consumed_at', t.time)
    .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'id_hash'])
    .execute();
  await db.schema.createIndex('oauth_records_grant').on('oauth_records').column('grant_id').execute();
  await db.schema.createIndex('oauth_records_uid').on('oauth_records').column('uid_hash').execute();
  await db.schema.createIndex('oauth_records_expiry').on('oauth_records').column('expires_at').execute();

  await db.schema
    .createTable('oauth_signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('retired_at', t.time)
    .execute();

  // A person's consent: one client, one workspace, the calendars and levels chosen.
  await db.schema
    .createTable('access_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('private_details', t.flag, (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('last_used_at', t.time)
    .addColumn('revoked_at', t.time)
    .addColumn('revoked_reason', 'text')
    .execute();
  await db.schema.createIndex('access_grants_user').on('access_grants').column('user_id').execute();
  await db.schema
    .createIndex('access_grants_workspace_client')
    .on('access_grants')
    .columns(['workspace_id', 'client_id'])
    .execute();

  await db.schema
    .createTable('access_grant_calendars')
    .addColumn('grant_id', 'text', (c) => c.notNull().references('access_grants.id').onDelete('cascade'))
    .addColumn('calendar_id', 'text', (c) => c.notNull().references('calendars.id').onDelete('cascade'))
    .addColumn('detail_level', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('access_grant_calendars_pk', ['grant_id', 'calendar_id'])
    .execute();

  // Clients a workspace admin registered for that workspace.
  await db.schema
    .createTable('workspace_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema.alterTable('workspace_policies').addColumn('blocked_clients', 'text').execute();
}
