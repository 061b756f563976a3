/**
 * The word index follows the rows on both engines: after any run of syncs — full and
 * incremental, items changed and removed, batches staged and swapped in, syncs that change
 * nothing — it lists exactly what an index made anew from the rows lists, and keeps the starts of
 * exactly the rows of instants there are; a search answers from
 * it what the window's rows, each read whole and matched as its reader sees it, answer; a word
 * inside most words or rows is answered from it too; and a copy purged for showing less keeps
 * none of its words.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { foldText } from '../../src/domain/search.ts';
import { localOffsets } from '../../src/domain/time/localOffsets.ts';
import { busyTitle } from '../../src/domain/visibility.ts';
import { decodeStarts } from '../../src/store/bucketStarts.ts';
import { type AppliedBatch, applyBatch } from '../../src/store/copyBatches.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { type CopyPlace, type CopyQuery, copyPage } from '../../src/store/copyReads.ts';
import { candidateCount, rebuildWords, wordCandidates } from '../../src/store/copyWords.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { unpackOccurrence } from '../../src/store/packedOccurrence.ts';
import type { Database } from '../../src/store/schema.ts';
import { bucketOf, decodePostings, decodeSlot, indexedText, slotOf } from '../../src/store/wordPostings.ts';
import { copyKeys } from '../helpers/copiedOccurrences.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { occurrence } from '../helpers/memoryCalendars.ts';
import { seedCalendars, seedReadGrant, seedUser, seedWorkspace } from '../helpers/seed.ts';

const ids = createEventIds(randomBytes(32));
/** What a row shows a search: its flags, and its folded title and rest. */
type RowText = { isPrivate: boolean; isFree: boolean; title: string; body: string };

const words = ['budget', 'review', 'planning', 'offsite', 'retro', 'hiring', 'lunch', 'müller'];

/** A seeded pseudo-random source: the same runs every time. */
function random(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    // The high bits: an LCG's low bits repeat with a short period.
    return Math.floor(state / 2 ** 15) % n;
  };
}

for (const engine of await enginesUnderTest()) {
  describe(`the word index of a copy (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    let calendarId: string;
    let copyKey: number;
    let owner: { userId: string; workspaceId: string };

    before(async () => {
      handle = await engine.open();
      const userId = await seedUser(handle.db, 'words@example.org');
      owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Words', [[userId, 'owner']]) };
      [calendarId] = (await seedCalendars(handle.db, owner, [{ name: 'Work' }])) as [string];
      await seedReadGrant(handle.db, owner, [calendarId], { privateDetails: true });
      await reconcileCopies(handle.db, 0);
      copyKey = (await copyKeys(handle.db)).get(calendarId)!;
    });
    after(() => handle.close());

    /** One batch, as a sync holding the copy's lease writes it (a batch with an end releases it). */
    const batch = async (fields: Partial<AppliedBatch>) => {
      await handle.db
        .updateTable('calendar_copies')
        .set({ lease_owner: 'test', lease_until: Number.MAX_SAFE_INTEGER })
        .where('calendar_id', '=', calendarId)
        .execute();
      return applyBatch(handle.db, {
        calendarId,
        owner: 'test',
        ids,
        now: 1,
        leaseMs: 1_000,
        full: false,
        upserts: [],
        removals: [],
        skipped: [],
        bytes: { spent: 0, limit: 1e9 },
        end: { state: 'position', horizon: { start: 0, end: 4e12 }, nextSyncAt: 4e12 },
        ...fields,
      });
    };

    /** An item of a few occurrences on days of March 2026, its text drawn from `words`. */
    const item = (key: string, pick: (n: number) => number, version = String(pick(1e6))) => ({
      key,
      version,
      occurrences: Array.from({ length: 1 + pick(3) }, (_, i): ProviderOccurrence => {
        const day = String(1 + pick(28)).padStart(2, '0');
        return occurrence({
          providerEventId: key,
          start: `2026-03-${day}T${String(8 + i).padStart(2, '0')}:00:00`,
          timeZone: pick(4) === 0 ? undefined : 'Europe/Berlin',
          privacy: pick(5) === 0 ? 'private' : 'public',
          title: `${words[pick(words.length)]} ${words[pick(words.length)]}`,
          description: `Notes: ${words[pick(words.length)]}`,
        });
      }),
    });

    /** The index as it is (in `db`, a transaction maybe): word, bucket and ids, in one order; each word in its slot. */
    const listed = async (db: Kysely<Database> = handle.db) =>
      (
        await db
          .selectFrom('copy_words')
          .select(['bucket', 'slot', 'lists'])
          .where(
            'copy_key',
            '=',
            db.selectFrom('calendar_copies').select('copy_key').where('calendar_id', '=', calendarId),
          )
          .execute()
      )
        .flatMap((row) =>
          [...decodeSlot(row.lists)].map(([word, ids]) => {
            assert.equal(slotOf(word), row.slot, `${word} in its slot`);
            return `${word} ${row.bucket} ${JSON.stringify(decodePostings(ids))}`;
          }),
        )
        .sort();

    const vocabulary = async () =>
      new Set(
        (
          await handle.db
            .selectFrom('copy_vocabulary')
            .select('words')
            .where('calendar_id', '=', calendarId)
            .executeTakeFirst()
        )?.words
          .split('\n')
          .filter((word) => word !== ''),
      );

    /** The index made anew from the rows, in a transaction left undone. */
    /** The starts kept beside the index, and the starts of the copy's instants as its rows hold them: bucket, id, start. */
    const starts = async () => {
      const kept = await handle.db
        .selectFrom('copy_starts')
        .select(['bucket', 'starts'])
        .where('copy_key', '=', copyKey)
        .execute();
      const rows = await handle.db
        .selectFrom('copy_occurrences')
        .select(['id', 'start_ms'])
        .where('copy_key', '=', copyKey)
        .where('floating', '=', 0)
        .execute();
      const line = (bucket: number, id: number, start: number) => `${bucket} ${id} ${start}`;
      return {
        kept: kept
          .flatMap((row) => {
            const { ids, starts } = decodeStarts(row.bucket, row.starts);
            assert.ok(ids.length > 0, 'no bucket of starts is kept empty');
            return ids.map((id, k) => line(row.bucket, id, starts[k]!));
          })
          .sort(),
        rows: rows
          .map((row) => line(bucketOf(Number(row.start_ms)), Number(row.id), Number(row.start_ms)))
          .sort(),
      };
    };

    const rebuilt = async () => {
      let made: string[] = [];
      await handle.db
        .transaction()
        .execute(async (trx) => {
          await rebuildWords(trx, calendarId);
          made = await listed(trx);
          throw new Undo();
        })
        .catch((error) => {
          if (!(error instanceof Undo)) throw error;
        });
      return made;
    };

    /**
     * The places a search matches by the rows themselves: every place of the window after the
     * cursor, in order, kept when the text its reader sees holds every word — the
     * placeholder title of a private event to a reader without private details, else the title
     * (and at full level the rest).
     */
    const byRows = async (query: CopyQuery, rows: Map<number, RowText>) => {
      const search = query.search!;
      const { rows: places } = await copyPage(handle.db, [{ ...query, search: undefined }]);
      return places.filter((place) => {
        const row = rows.get(place.rowId)!;
        if (row.isPrivate && !search.privateDetails) {
          const placeholder = foldText(busyTitle(row.isFree ? 'free' : 'busy'));
          return search.words.every((word) => placeholder.includes(word));
        }
        return search.words.every(
          (word) => row.title.includes(word) || (search.level === 'full' && row.body.includes(word)),
        );
      });
    };

    /** Each row's folded text and flags, read once for all the reads of one `searches`. */
    const rowTexts = async () =>
      new Map(
        (
          await handle.db
            .selectFrom('copy_occurrences')
            .select(['id', 'data', 'is_private', 'is_free'])
            .where('copy_key', '=', copyKey)
            .execute()
        ).map((row): [number, RowText] => {
          const { title_text, body_text } = indexedText(unpackOccurrence(row.data));
          return [
            Number(row.id),
            {
              isPrivate: Number(row.is_private) !== 0,
              isFree: Number(row.is_free) !== 0,
              title: title_text,
              body: body_text,
            },
          ];
        }),
      );

    /**
     * A search by the index and by the rows (`byRows`), as ids and count: over March, two days
     * inside it and its first 19½ days, at full and titles level, with and without private
     * details, a whole count, and pages of 3 with the page after each.
     */
    const searches = async (words: string[]) => {
      const windows = [
        ['2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z'],
        ['2026-03-10T06:30:00Z', '2026-03-12T07:00:00Z'],
        // Its last bucket of starts holds rows either side of its end.
        ['2026-03-01T00:00:00Z', '2026-03-20T12:00:00Z'],
      ];
      const reads = windows.flatMap(([start, end]) =>
        (['full', 'titles'] as const).flatMap((level) =>
          [true, false].flatMap((privateDetails) =>
            [undefined, 3].map((first) => ({
              query: {
                calendarId,
                copyKey,
                window: {
                  startNs: Temporal.Instant.from(start!).epochNanoseconds,
                  endNs: Temporal.Instant.from(end!).epochNanoseconds,
                },
                longestMs: 3_600_000,
                offsets: localOffsets('Europe/Berlin', { startMs: 1.77e12, endMs: 1.78e12 }),
                search: { words, level, privateDetails },
              },
              first,
            })),
          ),
        ),
      );
      const indexed = await Promise.all(
        reads.map(async ({ query, first }) => {
          const { rows, total } = await copyPage(handle.db, [query], first);
          // A page of 3 and the page after it, from its last place.
          const last = rows.at(-1);
          const next =
            first === undefined || last === undefined
              ? undefined
              : await copyPage(handle.db, [{ ...query, after: last }], first);
          return {
            ids: rows.map((row) => row.occurrenceId),
            total,
            next: next && { ids: next.rows.map((row) => row.occurrenceId), total: next.total },
          };
        }),
      );
      const ids = (places: readonly CopyPlace[], first?: number) =>
        places.slice(0, first).map((place) => place.occurrenceId);
      const texts = await rowTexts();
      const scanned = await Promise.all(
        reads.map(async ({ query, first }) => {
          const all = await byRows(query, texts);
          const last = all.slice(0, first).at(-1);
          const next =
            first === undefined || last === undefined
              ? undefined
              : await byRows({ ...query, after: last }, texts);
          return {
            ids: ids(all, first),
            total: all.length,
            next: next && { ids: ids(next, first), total: next.length },
          };
        }),
      );
      return { indexed, scanned };
    };

    // First, on a table nothing was deleted from: PostgreSQL places new rows one after another.
    it("writes a sync's lists in the key's order, so that a slot's buckets lie together", {
      skip: engine.name !== 'postgres' && 'SQLite keeps the table in its key order (without rowid)',
    }, async () => {
      const pick = random(3);
      await batch({ full: true, upserts: Array.from({ length: 60 }, (_, i) => item(`laid-${i}`, pick)) });
      const { rows } = await sql<{ slot: number; bucket: number }>`select slot, bucket from copy_words
          where copy_key = ${copyKey} order by ctid`.execute(handle.db);
      const keys = rows.map((row) => [Number(row.slot), Number(row.bucket)] as const);
      // Several slots over several buckets: written bucket by bucket, the order would differ.
      assert.ok(new Set(keys.map(([slot]) => slot)).size > 3 && new Set(keys.map(([, b]) => b)).size > 3);
      const inKeyOrder = [...keys].sort(([s1, b1], [s2, b2]) => s1 - s2 || b1 - b2);
      assert.deepEqual(keys, inKeyOrder);
    });

    it('lists exactly what the rows hold after any run of syncs, and searches as its rows answer', async () => {
      const pick = random(7);
      const held = new Set<string>();
      let matched = 0;
      for (let round = 0; round < 12; round++) {
        const kind = round < 4 ? round : pick(4);
        if (kind === 0) {
          // A full sync: some items kept as they are, some changed, the rest not seen (removed).
          const keys = Array.from({ length: 25 }, (_, i) => `item-${pick(40)}-${i % 3}`);
          const upserts = [...new Set(keys)].map((key) => item(key, pick));
          await batch({ full: true, upserts });
          held.clear();
          for (const u of upserts) held.add(u.key);
        } else if (kind === 1) {
          // An incremental sync: a few changed, a few removed.
          const keys = new Set(Array.from({ length: 3 }, () => `item-${pick(40)}-${pick(3)}`));
          const upserts = [...keys].map((key) => item(key, pick));
          const removals = [...held].filter(() => pick(5) === 0);
          await batch({ upserts, removals });
          for (const key of removals) held.delete(key);
          for (const u of upserts) held.add(u.key);
        } else if (kind === 2) {
          // A full sync of three batches: two staged, the last swapping them in.
          const keys = new Set(Array.from({ length: 18 }, (_, i) => `item-${pick(40)}-${i % 3}`));
          const upserts = [...keys].map((key) => item(key, pick));
          const first = await batch({
            full: true,
            upserts: upserts.slice(0, 6),
            stage: 'first',
            end: undefined,
          });
          const run = { runGeneration: first.generation, copied: first.copied };
          await batch({ full: true, upserts: upserts.slice(6, 12), stage: 'more', end: undefined, ...run });
          // The last batch writes again an item staged by the first, changed, and another as it was:
          // the rows it moves in and replaces at once were never listed.
          const again = upserts.length > 1 ? [item(upserts[0]!.key, pick), upserts[1]!] : [];
          await batch({ full: true, upserts: [...upserts.slice(12), ...again], swap: true, ...run });
        } else {
          // A sync that changes nothing writes nothing, the index included.
          const before = await listed();
          await batch({});
          assert.deepEqual(await listed(), before);
        }
        const index = await listed();
        assert.deepEqual(index, await rebuilt(), `round ${round}`);
        const { kept, rows } = await starts();
        assert.deepEqual(kept, rows, `round ${round}: the starts`);
        // The vocabulary keeps every listed word (and may keep words whose rows are gone).
        const known = await vocabulary();
        for (const line of index) assert.ok(known.has(line.split(' ')[0]!), line);
        for (const query of [
          ...words.map((word) => [foldText(word)]),
          ['get'],
          ['notes:', 'review'],
          ['zzz'],
          // Inside a placeholder title ("Busy", "Free"), and inside most words.
          ['bus'],
          ['e'],
          ['e', 'n'],
        ]) {
          const { indexed, scanned } = await searches(query);
          assert.deepEqual(indexed, scanned, `round ${round}: ${query.join(' ')}`);
        }
        matched += (await searches(['review'])).indexed[0]!.total;
      }
      assert.ok((await listed()).length > 0);
      assert.ok(matched > 0);
    });

    it('keeps the id of a row written again at its times, and writes only the slots of the words that changed', async () => {
      // The slots the engine writes (inserted or updated), recorded by a trigger.
      const sqlite = engine.name === 'sqlite';
      await sql`create table list_writes (slot integer not null)`.execute(handle.db);
      if (sqlite)
        for (const event of ['insert', 'update'])
          await sql
            .raw(
              `create trigger record_list_${event} after ${event} on copy_words begin insert into list_writes values (new.slot); end`,
            )
            .execute(handle.db);
      else {
        await sql`create function record_list() returns trigger language plpgsql as $$ begin insert into list_writes values (new.slot); return new; end $$`.execute(
          handle.db,
        );
        await sql`create trigger record_list after insert or update on copy_words for each row execute function record_list()`.execute(
          handle.db,
        );
      }
      const written = async () => {
        const rows = await handle.db
          .deleteFrom('list_writes' as never)
          .returning('slot' as never)
          .execute();
        return [...new Set(rows.map((row) => Number((row as { slot: number }).slot)))].sort();
      };
      const renamed = (title: string, version: string, start = '2026-03-10T09:00:00') => ({
        key: 'renamed',
        version,
        occurrences: [
          occurrence({
            providerEventId: 'renamed',
            start,
            timeZone: 'Europe/Berlin',
            title,
            description: 'Notes: walrus lunch',
          }),
        ],
      });
      const idsOf = async () =>
        (
          await handle.db
            .selectFrom('copy_occurrences')
            .select('id')
            .where('copy_key', '=', copyKey)
            .where('item_key', '=', 'renamed')
            .execute()
        ).map((row) => Number(row.id));
      await batch({ upserts: [renamed('quokka review', '1')] });
      const [id] = await idsOf();
      await written();
      await batch({ upserts: [renamed('narwhal review', '2')] });
      assert.deepEqual(await idsOf(), [id]);
      // "quokka" lost its only row (its list gone from its slot, written again unless emptied);
      // no other slot was written.
      const quokkaSlotHeld = await handle.db
        .selectFrom('copy_words')
        .select('slot')
        .where('bucket', '=', bucketOf(Date.parse('2026-03-10T08:00:00Z')))
        .where('slot', '=', slotOf('quokka'))
        .execute();
      assert.deepEqual(
        await written(),
        [...new Set([slotOf('narwhal'), ...(quokkaSlotHeld.length > 0 ? [slotOf('quokka')] : [])])].sort(),
      );
      // The same event again under a new version (a provider's touch, a retried write): no list.
      await batch({ upserts: [renamed('narwhal review', '2b')] });
      assert.deepEqual(await idsOf(), [id]);
      assert.deepEqual(await written(), []);
      assert.deepEqual(await listed(), await rebuilt());
      assert.equal((await searches(['narwhal', 'walrus'])).indexed[0]!.total, 1);
      assert.equal((await searches(['quokka'])).indexed[0]!.total, 0);
      // Moved, it is another row: a place a read took from the old one is not given the new one.
      // (A row after it first: SQLite gives a new row the highest id plus one, which the old
      // row's would be were it the last.)
      const beside = occurrence({ providerEventId: 'beside', start: '2026-03-11T09:00:00', title: 'Beside' });
      await batch({ upserts: [{ key: 'beside', version: '1', occurrences: [beside] }] });
      await batch({ upserts: [renamed('narwhal review', '3', '2026-03-10T10:00:00')] });
      const [moved] = await idsOf();
      assert.notEqual(moved, id);
      assert.deepEqual(await listed(), await rebuilt());
      for (const statement of sqlite
        ? ['drop trigger record_list_insert', 'drop trigger record_list_update', 'drop table list_writes']
        : ['drop trigger record_list on copy_words', 'drop function record_list', 'drop table list_writes'])
        await sql.raw(statement).execute(handle.db);
    });

    /** The copy's March, as a search by the index asks for it. */
    const inMarch = () => ({
      calendarId,
      copyKey,
      fromMs: Date.parse('2026-03-01T00:00:00Z'),
      untilMs: Date.parse('2026-04-01T00:00:00Z'),
    });
    const reader = { titlesOnly: false, privateDetails: true };

    it('answers from the index a word inside every word of the copy, and one in every row', async () => {
      const march = inMarch();
      const named = async (word: string) =>
        candidateCount((await wordCandidates(handle.db, [march], [word], reader)).get(calendarId)!);
      const titled = (key: string, title: string, day = 1) => ({
        key,
        version: '1',
        occurrences: [
          occurrence({
            providerEventId: key,
            start: `2026-03-0${day}T09:00:00`,
            timeZone: 'Europe/Berlin',
            title,
          }),
        ],
      });
      // 500 words of the vocabulary hold "ab": their lists are read, the row named once.
      const spelled = Array.from({ length: 500 }, (_, i) => `ab${i}`).join(' ');
      await batch({ full: true, upserts: [titled('spelled', spelled)] });
      assert.equal(await named('ab'), 1);
      assert.equal(await named('ab499'), 1);
      assert.equal(await named('ab500'), 0);
      // 20,001 rows of one word: every one named, a page of them placed and all counted.
      const rows = Array.from({ length: 20_001 }, (_, i) => titled(`row-${i}`, 'standup', 1 + (i % 9)));
      await batch({ full: true, upserts: rows });
      assert.equal(await named('standup'), 20_001);
      assert.equal(await named('a'), 20_001);
      const page = await copyPage(
        handle.db,
        [
          {
            calendarId,
            copyKey,
            window: {
              startNs: BigInt(march.fromMs) * 1_000_000n,
              endNs: BigInt(march.untilMs) * 1_000_000n,
            },
            longestMs: 3_600_000,
            offsets: [],
            search: { words: ['stand'], level: 'titles', privateDetails: false },
          },
        ],
        50,
      );
      assert.equal(page.total, 20_001);
      assert.equal(page.rows.length, 50);
      assert.ok(page.rows.every((row) => row.startMs === Date.parse('2026-03-01T08:00:00Z')));
    });

    it('has PostgreSQL plan the word lists with their slots at every search, preparing the rest', {
      skip: engine.name !== 'postgres' && 'SQLite parses a statement once and has no plans to keep',
    }, async () => {
      const march = inMarch();
      // One connection (the transaction's), past the five calls after which a prepared statement keeps one plan.
      const prepared = await handle.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 7; i++) {
          const named = await wordCandidates(trx, [march], ['standup'], reader);
          assert.equal(candidateCount(named.get(calendarId)!), 20_001);
        }
        const { rows } = await sql<{
          statement: string;
        }>`select statement from pg_prepared_statements where name like 'reused_%'`.execute(trx);
        return rows.map((row) => row.statement);
      });
      assert.ok(
        prepared.some((text) => text.includes('from copy_vocabulary')),
        'the vocabularies are read by a prepared statement',
      );
      assert.deepEqual(
        prepared.filter((text) => text.includes('from copy_words')),
        [],
        'the lists are not: the plan of any slots filters every slot of the window',
      );
    });

    it("joins the rows the index names with those a reader's placeholder title names, in one bucket and local", async () => {
      const on = (key: string, hour: number, fields: Partial<ProviderOccurrence>) => ({
        key,
        version: '1',
        occurrences: [
          occurrence({
            providerEventId: key,
            start: `2026-03-02T${String(hour).padStart(2, '0')}:00:00`,
            timeZone: 'Europe/Berlin',
            ...fields,
          }),
        ],
      });
      // One day, one bucket of starts: "bus" in a public title (the index names it), in the
      // placeholder of a private event at its time and of one at a floating time (a reader without
      // private details sees "Busy" there: the rows name them), and in none of a public "Standup".
      await batch({
        full: true,
        upserts: [
          on('public-bus', 9, { title: 'Bus tour' }),
          on('standup', 10, { title: 'Standup' }),
          on('private', 11, { title: 'Dentist', privacy: 'private' }),
          on('private-floating', 13, { title: 'Dentist', privacy: 'private', timeZone: undefined }),
        ],
      });
      const page = await copyPage(
        handle.db,
        [
          {
            calendarId,
            copyKey,
            window: {
              startNs: Temporal.Instant.from('2026-03-01T00:00:00Z').epochNanoseconds,
              endNs: Temporal.Instant.from('2026-04-01T00:00:00Z').epochNanoseconds,
            },
            longestMs: 3_600_000,
            offsets: localOffsets('Europe/Berlin', { startMs: 1.77e12, endMs: 1.78e12 }),
            search: { words: ['bus'], level: 'titles', privateDetails: false },
          },
        ],
        50,
      );
      assert.equal(page.total, 3);
      assert.deepEqual(
        page.rows.map((row) => new Date(row.startMs).toISOString()),
        ['2026-03-02T08:00:00.000Z', '2026-03-02T10:00:00.000Z', '2026-03-02T12:00:00.000Z'],
      );
    });

    it('keeps none of the words of a copy purged for showing less', async () => {
      assert.ok((await listed()).length > 0);
      await handle.db.updateTable('access_grants').set({ revoked_at: 1 }).execute();
      await seedReadGrant(handle.db, owner, [calendarId], { detailLevel: 'titles', privateDetails: false });
      const { purged } = await reconcileCopies(handle.db, 2);
      assert.equal(purged, 1);
      assert.deepEqual(await listed(), []);
      assert.equal((await vocabulary()).size, 0);
      assert.deepEqual((await starts()).kept, []);
    });
  });
}

class Undo extends Error {}
