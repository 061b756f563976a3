import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  // A provider's change-notification channel on one calendar (Google watch channel, Graph
  // subscription). Not tied to the copy: when the copy goes, the row stays until the channel is
  // stopped at the provider. It goes with its account (without credentials it cannot be
  // stopped, and it expires on its own). The secret token is kept only as its hash.
  await db.schema
    .createTable('push_channels')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('calendar_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) =>
      c.notNull().references('connected_accounts.id').onDelete('cascade'),
    )
    .addColumn('resource_id', 'text')
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('push_channels_pk', ['provider', 'channel_id'])
    .execute();
  await db.schema.createIndex('push_channels_calendar').on('push_channels').column('calendar_id').execute();
  await db.schema.createIndex('push_channels_expiry').on('push_channels').column('expires_at').execute();
}
