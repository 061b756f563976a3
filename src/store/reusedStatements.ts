/**
 * Statements a read runs again and again with other values (a copy's window, search and busy
 * time): written with every value a parameter and marked `reused`, they are parsed once per
 * connection on SQLite (the dialect's statement cache) and, on PostgreSQL, prepared once per
 * connection under a name taken from their text, so the server plans them once, not at every
 * read (planning cost a search of 20 calendars more than its execution).
 */
import { createHash } from 'node:crypto';
import { type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

const marker = '/* reused */';

/** Marks a statement as one to prepare and keep. */
export const reused = <T>(statement: RawBuilder<T>): RawBuilder<T> => sql<T>`${sql.raw(marker)} ${statement}`;

/** A number as a parameter, typed for PostgreSQL's arithmetic (an untyped one would be text in a `case`). */
export const numberParameter = (n: number): RawBuilder<number> => sql<number>`cast(${n} as bigint)`;

/**
 * `in` a list given as one parameter, so the statement keeps one text for any length: PostgreSQL
 * `= any(array)`, SQLite a `json_each` subquery (on a key, one lookup per value).
 */
export const inList = (
  // biome-ignore lint/suspicious/noExplicitAny: any database's schema
  db: Kysely<any>,
  values: readonly (string | number)[],
  type: 'text' | 'bigint',
): RawBuilder<unknown> =>
  db.getExecutor().adapter instanceof PostgresAdapter
    ? sql`= any(cast(${values} as ${sql.raw(type)}[]))`
    : sql`in (select value from json_each(${JSON.stringify(values)}))`;

/** Names by text, remembered (a bounded set: the texts differ only in their shape, never their values). */
const names = new Map<string, string>();

/** pg's query for a statement: named when it is marked `reused`. */
export function pgStatement(
  text: string,
  values: unknown[],
): { text: string; values: unknown[]; name?: string } {
  if (!text.startsWith(marker)) return { text, values };
  let name = names.get(text);
  if (name === undefined) {
    name = `reused_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
    if (names.size >= 1_000) names.clear();
    names.set(text, name);
  }
  return { name, text, values };
}
