import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  // Requests of one grant in one minute, counted by every instance on one PostgreSQL (auth/
  // grantBudget.ts). No foreign key: a count outlives nothing but its window, and the hourly
  // sweep removes past windows.
  await db.schema
    .createTable('grant_budget_windows')
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('window_start', t.time, (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('grant_budget_windows_pk', ['grant_id', 'window_start'])
    .execute();
  await db.schema
    .createIndex('grant_budget_windows_start')
    .on('grant_budget_windows')
    .column('window_start')
    .execute();
}
