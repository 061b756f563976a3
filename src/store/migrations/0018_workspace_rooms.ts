import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // The rooms of a workspace, by address (its case-insensitive key once per workspace): kept by
  // admins or filled from a provider (`source`); features are a JSON list of words.
  await db.schema
    .createTable('workspace_rooms')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('capacity', 'integer')
    .addColumn('features', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_rooms_pk', ['workspace_id', 'email_key'])
    .execute();
}
