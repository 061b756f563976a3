/**
 * A client that has gone stops its read: readEvents is given the request's signal and asks no
 * copy for more once it is aborted (the copies are read one query after another, the loop free
 * between them, so the closed connection is heard in between).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import type { CalendarDeps } from '../../src/calendars/calendarDeps.ts';
import type { CopyForRead } from '../../src/calendars/copies.ts';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import { readEvents } from '../../src/calendars/reads/readEvents.ts';
import { parseWindow } from '../../src/domain/window.ts';
import { createSecretBox } from '../../src/lib/encryption.ts';
import type { Principal } from '../../src/policy/principal.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { TestClock } from '../helpers/clock.ts';
import { seedCalendars, seedUser, seedWorkspace } from '../helpers/seed.ts';

describe('a read whose client has gone', () => {
  let handle: DatabaseHandle;
  let calendarIds: string[];
  let principal: Principal;

  before(async () => {
    handle = openDatabase({ sqlitePath: ':memory:' });
    await migrateToLatest(handle);
    const userId = await seedUser(handle.db, 'ove@example.org');
    const owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Gone', [[userId, 'owner']]) };
    calendarIds = await seedCalendars(handle.db, owner, [
      { name: 'One' },
      { name: 'Two' },
      { name: 'Three' },
    ]);
    principal = {
      ...owner,
      clientId: 'c',
      grantId: 'g',
      scopes: ['calendar:read'],
      calendars: calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'full' })),
      privateDetails: false,
      policy: defaultPolicy,
    };
  });
  after(() => handle.close());

  /** Deps whose copies all answer, counting the copies asked (a copy may take more than one query); `onQuery` runs at each query. */
  const depsCounting = (onQuery: () => void) => {
    const asked = new Set<unknown>();
    const counted = {
      get copies() {
        return asked.size;
      },
    };
    const counter: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        const query = handle.db.getExecutor().compileQuery(node, queryId);
        if (query.sql.includes('from copy_occurrences')) {
          for (const value of query.parameters) if (calendarIds.includes(value as string)) asked.add(value);
          onQuery();
        }
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const secretKey = randomBytes(32);
    const copy = (calendarId: string): CopyForRead => ({
      calendarId,
      level: 'full',
      syncedAt: 0,
      stale: false,
      failureReason: null,
      privateDetails: false,
      skipped: 0,
      longestMs: 0,
      horizonStart: 0,
      horizonEnd: 4e12,
    });
    const deps: CalendarDeps = {
      db: handle.db.withPlugin(counter),
      clock: new TestClock(),
      box: createSecretBox(secretKey),
      providers: {},
      ids: createEventIds(secretKey),
      readDeadlineMs: 1_000,
      copies: {
        forRead: async (ids) => new Map(ids.map((id) => [id, copy(id)])),
        afterWrite: async () => {},
        syncNow: async () => 'synced',
      },
    };
    return { deps, counted };
  };

  const request = () => ({
    calendarIds,
    window: parseWindow('2026-03-01T00:00:00Z', '2026-03-08T00:00:00Z'),
    timeZone: 'Europe/Berlin',
  });

  it('answers from every copy while the client waits', async () => {
    const { deps, counted } = depsCounting(() => {});
    const read = await readEvents(deps, principal, request(), { signal: new AbortController().signal });
    assert.deepEqual(read.excluded, []);
    assert.equal(counted.copies, 3);
  });

  it('asks no further copy once the client has gone', async () => {
    const gone = new AbortController();
    const { deps, counted } = depsCounting(() => gone.abort());
    await assert.rejects(readEvents(deps, principal, request(), { signal: gone.signal }), {
      name: 'AbortError',
    });
    assert.equal(counted.copies, 1);
  });
});
