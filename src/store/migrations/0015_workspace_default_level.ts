import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The level a calendar starts at on the consent page, chosen per workspace (within its maximum).
  await db.schema
    .alterTable('workspace_policies')
    .addColumn('default_detail_level', 'text', (c) => c.notNull().defaultTo('titles'))
    .execute();
}
