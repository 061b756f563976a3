/**
 * A multi-row insert written out as text and a flat list of values. A sync writes its rows a
 * hundred at a time, fifteen columns each: built as query-builder nodes, one per value, the
 * statements cost the request thread more than the engine's work (a first sync of 20,000 events:
 * ~250 ms of its CPU).
 */
import { CompiledQuery, type Kysely, PostgresAdapter } from 'kysely';
import type { Database } from './schema.ts';

export async function insertRows<T extends object, R = never>(
  db: Kysely<Database>,
  table: keyof Database & string,
  columns: readonly (keyof T & string)[],
  rows: readonly T[],
  /** `onConflict`: what follows `on conflict` (its target and action), the same on both engines. */
  options: { returning?: readonly string[]; onConflict?: string } = {},
): Promise<R[]> {
  const { returning = [], onConflict } = options;
  if (rows.length === 0) return [];
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const parameters: unknown[] = [];
  const tuples: string[] = [];
  for (const row of rows) {
    const marks: string[] = [];
    for (const column of columns) {
      parameters.push(row[column] ?? null);
      marks.push(postgres ? `$${parameters.length}` : '?');
    }
    tuples.push(`(${marks.join(', ')})`);
  }
  const names = (list: readonly string[]) => list.map((name) => `"${name}"`).join(', ');
  const text =
    `insert into "${table}" (${names(columns)}) values ${tuples.join(', ')}` +
    (onConflict === undefined ? '' : ` on conflict ${onConflict}`) +
    (returning.length > 0 ? ` returning ${names(returning)}` : '');
  return (await db.executeQuery<R>(CompiledQuery.raw(text, parameters))).rows;
}
