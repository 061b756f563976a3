import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Every request to /mcp and /v1 counts itself here on PostgreSQL: logged, each count was a
  // commit waiting for the log's flush (~0.3 ms; ~0.12 ms unlogged). A count lives a minute; a
  // server crash that empties the table forgets at most the current minute's (auth/grantBudget.ts).
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table grant_budget_windows set unlogged`.execute(db);
}
