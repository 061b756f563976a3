import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  // Every write an app attempted on a person's calendar: who, which app, which calendar and
  // event, what came of it. Never event content. Calendars may go; their write history stays.
  // No calendar: the app named an event or calendar that is not shared with it.
  await db.schema
    .createTable('event_writes')
    .addColumn('id', t.serial, (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('calendar_id', 'text')
    .addColumn('event_id', 'text')
    .addColumn('occurrence_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('scope', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('event_writes_user').on('event_writes').columns(['user_id', 'id']).execute();

  // A client's idempotency keys for create_event: the same key makes at most one event.
  await db.schema
    .createTable('write_keys')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('calendar_id', 'text', (c) => c.notNull())
    .addColumn('uid', 'text', (c) => c.notNull())
    .addColumn('provider_event_id', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('write_keys_pk', ['user_id', 'client_id', 'key_hash'])
    .execute();
  await db.schema.createIndex('write_keys_created').on('write_keys').column('created_at').execute();
}
