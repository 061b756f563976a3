import type { Kysely } from 'kysely';
import { columnTypes } from './columnTypes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // A subscription being created, by any instance: Graph checks the address meanwhile, and the
  // instance its check reaches echoes the token only while some row here is current.
  await db.schema
    .createTable('push_handshakes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('until', t.time, (c) => c.notNull())
    .execute();
}
