import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // Whether a copy holds private events' details (a grant reaching it may see them). Copies made
  // before this held them all: marked so, the next round purges them where no grant may see them.
  await db.schema
    .alterTable('calendar_copies')
    .addColumn('private_details', t.flag, (c) => c.notNull().defaultTo(t.flag === 'boolean' ? true : 1))
    .execute();
}
