import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Beside the word index, per copy and bucket, the ids and starts of its instants
 * (store/copyStarts.ts): a search then chooses its page from the rows the index names without
 * reading them. Made here from the rows every copy holds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await sql`create table copy_starts (
    copy_key integer not null references calendar_copies (copy_key) on delete cascade,
    bucket integer not null,
    starts ${postgres ? sql`bytea` : sql`blob`} not null,
    constraint copy_starts_key primary key (copy_key, bucket)
  ) ${postgres ? sql`` : sql`without rowid`}`.execute(db);
  const copies = await sql<{
    copy_key: number;
  }>`select distinct copy_key from copy_occurrences where floating = 0`.execute(db);
  for (const { copy_key } of copies.rows) {
    const rows = await sql<{ id: number | string; start_ms: number | string }>`select id, start_ms
      from copy_occurrences where copy_key = ${copy_key} and floating = 0 order by id`.execute(db);
    const buckets = new Map<number, number[]>();
    for (const row of rows.rows) {
      const start = Number(row.start_ms);
      const bucket = Math.floor(start / bucketMs);
      const bytes = buckets.get(bucket) ?? [];
      buckets.set(bucket, bytes);
      // Each row's id and its start's offset in the bucket, in order of id.
      bytes.push(Number(row.id), start - bucket * bucketMs);
    }
    const values = [...buckets].map(
      ([bucket, pairs]) => sql`(${copy_key}, ${bucket}, ${startsBytes(pairs)})`,
    );
    for (let i = 0; i < values.length; i += 200)
      await sql`insert into copy_starts (copy_key, bucket, starts) values ${sql.join(values.slice(i, i + 200))}`.execute(
        db,
      );
  }
}

// The format as this migration writes it, frozen here (store/bucketStarts.ts#encodeStarts).
const bucketMs = 2 ** 28;

/** Pairs of (id ascending, offset in the bucket) as the gap from the id before and the offset, 7 bits a byte. */
function startsBytes(pairs: readonly number[]): Buffer {
  const out: number[] = [];
  const put = (value: number) => {
    let rest = value;
    while (rest >= 0x80) {
      out.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    out.push(rest);
  };
  let last = 0;
  for (let k = 0; k < pairs.length; k += 2) {
    put(pairs[k]! - last);
    put(pairs[k + 1]!);
    last = pairs[k]!;
  }
  return Buffer.from(out);
}
