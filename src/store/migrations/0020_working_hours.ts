import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // A person's own working hours (one local period on some weekdays, in their zone), times only;
  // none stored: none known.
  await db.schema
    .createTable('working_hours')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('days', 'text', (c) => c.notNull())
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('end_time', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .execute();
}
