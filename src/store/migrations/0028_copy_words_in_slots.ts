import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * A copy's word lists of one bucket go into 16 rows, a word's list into the row of its slot:
 * one row a word spent ~90 bytes on the row and its key on PostgreSQL, and most of a calendar's
 * words (references, meeting numbers) are one list of one posting. The lists are regrouped as
 * they are, their postings untouched.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await sql`alter table copy_words rename to copy_words_by_word`.execute(db);
  if (postgres) await sql`alter index copy_words_key rename to copy_words_by_word_key`.execute(db);
  await sql`create table copy_words (
    copy_key integer not null references calendar_copies (copy_key) on delete cascade,
    bucket integer not null,
    slot integer not null,
    lists ${postgres ? sql`bytea` : sql`blob`} not null,
    constraint copy_words_key primary key (copy_key, slot, bucket)
  ) ${postgres ? sql`` : sql`without rowid`}`.execute(db);

  const copies = await sql<{ copy_key: number }>`select distinct copy_key from copy_words_by_word`.execute(
    db,
  );
  for (const { copy_key } of copies.rows) {
    const rows = await sql<{
      word: string;
      bucket: number | string;
      ids: Uint8Array;
    }>`select word, bucket, ids
      from copy_words_by_word where copy_key = ${copy_key}`.execute(db);
    const slots = new Map<string, { bucket: number; slot: number; lists: [string, Uint8Array][] }>();
    for (const row of rows.rows) {
      const bucket = Number(row.bucket);
      const slot = slotOf(row.word);
      const at = `${bucket} ${slot}`;
      const held = slots.get(at) ?? { bucket, slot, lists: [] };
      slots.set(at, held);
      held.lists.push([row.word, row.ids]);
    }
    const values = [...slots.values()].map(
      ({ bucket, slot, lists }) => sql`(${copy_key}, ${bucket}, ${slot}, ${slotBytes(lists)})`,
    );
    for (let i = 0; i < values.length; i += 200)
      await sql`insert into copy_words (copy_key, bucket, slot, lists) values ${sql.join(values.slice(i, i + 200))}`.execute(
        db,
      );
  }
  await sql`drop table copy_words_by_word`.execute(db);
}

// The format as this migration writes it, frozen here (store/wordPostings.ts#slotOf, #encodeSlot).
function slotOf(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % 16;
}

function slotBytes(lists: [string, Uint8Array][]): Buffer {
  const parts: Buffer[] = [];
  const length = (n: number) => {
    const bytes: number[] = [];
    for (let value = n; ; value >>>= 7) {
      if (value < 0x80) return Buffer.from([...bytes, value]);
      bytes.push((value & 0x7f) | 0x80);
    }
  };
  for (const [word, ids] of lists.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const name = Buffer.from(word, 'utf8');
    parts.push(length(name.length), name, length(ids.length), Buffer.from(ids));
  }
  return Buffer.concat(parts);
}
