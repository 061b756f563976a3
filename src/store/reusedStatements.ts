/**
 * Statements a read runs again and again with other values (a copy's window, search and busy
 * time): written with every value a parameter and marked `reused`, they are parsed once per
 * connection on SQLite (the dialect's statement cache) and, on PostgreSQL, prepared once per
 * connection under a name taken from their text, so the server plans them once, not at every
 * read (planning cost a search of 20 calendars more than its execution).
 *
 * They are written with `q`, Kysely's `sql` tag without its tree: a statement is its text pieces
 * and values, flattened into text and parameters when it is compiled. A page over 20 calendars
 * is ~200 pieces and ~160 values; as Kysely's tree of frozen nodes, visited to compile, it cost
 * the request thread ~8 % of a read.
 */
import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely, PostgresAdapter, sql } from 'kysely';

const marker = '/* reused */';

/** A statement or a piece of one: text between values, values that are parameters or pieces. */
export class Statement<R = unknown> {
  /** Only names the rows' type. */
  declare readonly rows?: R;
  readonly strings: readonly string[];
  readonly values: readonly unknown[];
  constructor(strings: readonly string[], values: readonly unknown[]) {
    this.strings = strings;
    this.values = values;
  }
}

/** A piece of a statement, as `sql` writes one: a value is a parameter, a piece is written in. */
export const q = <R = unknown>(strings: TemplateStringsArray, ...values: unknown[]): Statement<R> =>
  new Statement<R>(strings, values);

/** Text written as it is (never a value from outside). */
q.raw = <R = unknown>(text: string): Statement<R> => new Statement<R>([text], []);

/** A whole number written in the text (a code, a limit: the text changes with it). */
q.lit = (n: number): Statement<number> => {
  if (!Number.isSafeInteger(n)) throw new TypeError(`q.lit: ${n} is not a whole number`);
  return q.raw(String(n));
};

/** A column, quoted (`table.column` as two names). */
q.ref = (column: string): Statement<unknown> =>
  q.raw(
    column
      .split('.')
      .map((name) => `"${name.replaceAll('"', '""')}"`)
      .join('.'),
  );

/** Pieces joined by a separator (a comma by default). */
q.join = (pieces: readonly Statement[], separator: Statement = q`, `): Statement => {
  const values: Statement[] = [];
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) values.push(separator);
    values.push(pieces[i]!);
  }
  return new Statement(new Array<string>(values.length + 1).fill(''), values);
};

/** `statement` flattened: its text between parameters (`strings`, one more than `values`). */
function flatten(statement: Statement, strings: string[], values: unknown[]): void {
  strings[strings.length - 1] += statement.strings[0]!;
  for (let i = 0; i < statement.values.length; i++) {
    const value = statement.values[i];
    if (value instanceof Statement) flatten(value, strings, values);
    else {
      values.push(value);
      strings.push('');
    }
    strings[strings.length - 1] += statement.strings[i + 1]!;
  }
}

/** A statement compiled for `db`, marked as one to prepare and keep (on PostgreSQL, under a name). */
// biome-ignore lint/suspicious/noExplicitAny: any database's schema
export function reused<R>(db: Kysely<any>, statement: Statement<R>): CompiledQuery<R> {
  return compiled(db, statement, `${marker} `);
}

/**
 * A statement of one text like `reused` (SQLite still parses it once), which PostgreSQL plans
 * with its values at every call instead of preparing it: for a statement whose good plan depends
 * on them. The word lists' `slot = any($2)` is one: with one slot in the list, the planner puts it
 * in the index's condition; in the plan it makes for any list (the one a prepared statement
 * settles on after five calls) it filters the copies' every slot of the window instead — ~3,500
 * rows and 520 buffers a search of 20 copies, against 220 rows and 95 (1.2 against 0.14 ms).
 */
// biome-ignore lint/suspicious/noExplicitAny: any database's schema
export function plannedEachCall<R>(db: Kysely<any>, statement: Statement<R>): CompiledQuery<R> {
  return compiled(db, statement, '');
}

/**
 * `statement` compiled for `db` after `prefix` (the mark, or none): its placeholders written here
 * (`?`, or PostgreSQL's `$n`). Where the database has plugins (tests that count or capture
 * statements), compiled by Kysely through them, to the same text.
 */
// biome-ignore lint/suspicious/noExplicitAny: any database's schema
function compiled<R>(db: Kysely<any>, statement: Statement<R>, prefix: string): CompiledQuery<R> {
  const strings = [prefix];
  const values: unknown[] = [];
  flatten(statement, strings, values);
  const executor = db.getExecutor();
  if (executor.plugins.length > 0)
    return sql<R>(strings as unknown as TemplateStringsArray, ...values).compile(db);
  const postgres = executor.adapter instanceof PostgresAdapter;
  let text = strings[0]!;
  for (let i = 1; i < strings.length; i++) text += `${postgres ? `$${i}` : '?'}${strings[i]}`;
  return CompiledQuery.raw(text, values) as CompiledQuery<R>;
}

/** A number as a parameter, typed for PostgreSQL's arithmetic (an untyped one would be text in a `case`). */
export const numberParameter = (n: number): Statement<number> => q<number>`cast(${n} as bigint)`;

/**
 * `in` a list given as one parameter, so the statement keeps one text for any length: PostgreSQL
 * `= any(array)`, SQLite a `json_each` subquery (on a key, one lookup per value).
 */
export const inList = (
  // biome-ignore lint/suspicious/noExplicitAny: any database's schema
  db: Kysely<any>,
  values: readonly (string | number)[],
  type: 'text' | 'bigint',
): Statement =>
  db.getExecutor().adapter instanceof PostgresAdapter
    ? q`= any(cast(${values} as ${q.raw(type)}[]))`
    : q`in (select value from json_each(${JSON.stringify(values)}))`;

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
