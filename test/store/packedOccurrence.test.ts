/**
 * Copied occurrences are stored packed (store/packedOccurrence.ts): they come back as they went
 * in, the same occurrence packs to the same bytes (a sync that changed nothing compares equal),
 * rows written in an earlier format read as they are, and PostgreSQL's migration keeps them
 * readable. The sync tests store and read them through both engines.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { migrateToLatest } from '../../src/store/database.ts';
import { up as packOccurrencesMigration } from '../../src/store/migrations/0019_packed_occurrences.ts';
import { packOccurrence, unpackOccurrence } from '../../src/store/packedOccurrence.ts';
import { freshPostgres, postgresSkip } from '../helpers/databases.ts';
import { occurrence } from '../helpers/memoryCalendars.ts';

const meeting: ProviderOccurrence = occurrence({
  providerEventId: 'ev-1',
  start: '2026-03-10T09:00:00',
  timeZone: 'Europe/Berlin',
  duration: 'PT1H',
  title: 'Café with Zoë — budget ✓',
  description: 'Agenda:\n1. Status of the open items from last time.\n2. Decisions needed before Friday.',
  locations: [{ name: 'Room 2, 3rd floor' }],
});

describe('packed occurrences', () => {
  it('come back as they went in, smaller, the same bytes each time', () => {
    const json = JSON.stringify(meeting);
    const packed = packOccurrence(meeting);
    assert.deepEqual(unpackOccurrence(packed), meeting);
    assert.ok(packed.length < json.length * 0.6, `${packed.length} bytes of ${json.length}`);
    assert.deepEqual(packOccurrence(structuredClone(meeting)), packed);
  });

  it('leave out what JSON leaves out: a member that is undefined is not there when read', () => {
    const packed = packOccurrence({ ...meeting, color: undefined, description: undefined });
    const read = unpackOccurrence(packed);
    assert.equal('color' in read, false);
    assert.equal('description' in read, false);
    assert.deepEqual(packed, packOccurrence((({ description: _, ...rest }) => rest)(meeting)));
  });

  it('reads rows packed by the format before (JSON deflated against a dictionary)', () => {
    const formatOne = Buffer.from(
      'Ad3Uuw3CMBSF4VWOqImVRwUdDzEAokJpHHwdLCW+yDEgOnaAkgUQY2STTIIsGiQeomaDe75fuu+EaRclf6Sc95L8d+osSuJFPPhCPSZXGfsEPpG6vWJv/BpLbm/ojmcUW1WSR3c5veQYlWSVHOY2EXjggDX8msAbsjCe6gbacY1KNh7hAJHbVGBKKxM2NQhPihQK0uwIM2eUPIhPmefMNdI+MqegK2YXut8B',
      'base64',
    );
    assert.deepEqual(unpackOccurrence(formatOne), meeting);
  });

  it('reads rows written before the packing: JSON text, or its UTF-8 bytes', () => {
    const json = JSON.stringify(meeting);
    assert.deepEqual(unpackOccurrence(json), meeting);
    assert.deepEqual(unpackOccurrence(new Uint8Array(Buffer.from(json, 'utf8'))), meeting);
  });
});

describe('the PostgreSQL migration to packed occurrences', async () => {
  const skip = await postgresSkip('the packed occurrences migration');
  it('keeps the rows written before readable', { skip }, async () => {
    const handle = await freshPostgres();
    try {
      await migrateToLatest(handle);
      // The columns as they were: text holding JSON.
      for (const table of ['copy_occurrences', 'copy_staged_occurrences'])
        await sql`alter table ${sql.table(table)} alter column data type text using convert_from(data, 'UTF8')`.execute(
          handle.db,
        );
      await handle.db.transaction().execute(async (trx) => {
        // A row alone, without the copy and item it would belong to.
        await sql`set local session_replication_role = replica`.execute(trx);
        await sql`insert into copy_staged_occurrences (copy_key, item_key, start_ms, end_ms, data, title_text, body_text)
          values (1, 'k', 0, 1, ${JSON.stringify(meeting)}, '', '')`.execute(trx);
      });
      await packOccurrencesMigration(handle.db as never);
      const row = await handle.db
        .selectFrom('copy_staged_occurrences')
        .select('data')
        .executeTakeFirstOrThrow();
      assert.ok(row.data instanceof Uint8Array);
      assert.deepEqual(unpackOccurrence(row.data), meeting);
    } finally {
      await handle.close();
    }
  });
});
