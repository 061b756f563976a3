import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  const on = t.flag === 'boolean' ? true : 1;
  // Whether members of a workspace may see each other's free/busy (times only): on unless an admin says no.
  await db.schema
    .alterTable('workspace_policies')
    .addColumn('colleague_availability', t.flag, (c) => c.notNull().defaultTo(on))
    .execute();
  // Whether a calendar's busy time counts toward its person's availability: every calendar unless they say no.
  await db.schema
    .alterTable('calendars')
    .addColumn('counts_for_availability', t.flag, (c) => c.notNull().defaultTo(on))
    .execute();
}
