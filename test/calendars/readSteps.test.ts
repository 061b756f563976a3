/**
 * The steps of a read of the copies. The copies of the granted calendars are asked for beside the
 * check of the calendars, and only those. A client that has gone stops its read: readEvents is
 * given the request's signal, asks no copy once it is aborted, reads no event's row once it is
 * aborted while the copies' places are chosen (the loop is free while a query runs off it, so
 * the closed connection is heard), and leaves the line of reads waiting for a slot. A live
 * calendar's provider is waited for before the read takes its slot, never while holding one.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import type { CalendarDeps } from '../../src/calendars/calendarDeps.ts';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import { readEvents } from '../../src/calendars/reads/readEvents.ts';
import { parseWindow } from '../../src/domain/window.ts';
import { createSecretBox } from '../../src/lib/encryption.ts';
import { workSlots } from '../../src/lib/workSlots.ts';
import type { Principal } from '../../src/policy/principal.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { TestClock } from '../helpers/clock.ts';
import { copyHolding, copyKeys, freshCopy } from '../helpers/copiedOccurrences.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  seedMemoryAccount,
} from '../helpers/memoryCalendars.ts';
import { seedCalendars, seedReadGrant, seedUser, seedWorkspace } from '../helpers/seed.ts';

const secretKey = randomBytes(32);
const ids = createEventIds(secretKey);

describe('the steps of a read of the copies', () => {
  let handle: DatabaseHandle;
  let calendarIds: string[];
  let liveId: string;
  let principal: Principal;
  // A calendar with no copy: read from its provider, whose answer each test lets through.
  const liveCalendar: MemoryCalendar = {
    name: 'Live',
    occurrences: [occurrence({ start: '2026-03-04T09:00:00', timeZone: 'Europe/Berlin' })],
  };
  let providerAsked = 0;
  let answerProvider = () => {};
  const provider = memoryProvider('caldav', new Map([['/live/', liveCalendar]]));
  const slowProvider: typeof provider = {
    ...provider,
    listEvents: async (...args) => {
      providerAsked += 1;
      await new Promise<void>((resolve) => (answerProvider = resolve));
      return provider.listEvents(...args);
    },
  };

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
    const [live] = await seedMemoryAccount(
      { db: handle.db, box: createSecretBox(secretKey) },
      owner,
      slowProvider,
    );
    liveId = live!;
    await seedReadGrant(handle.db, owner, calendarIds);
    await reconcileCopies(handle.db, 0);
    for (const calendarId of calendarIds)
      await copyHolding(handle.db, ids, calendarId, [
        occurrence({
          providerEventId: `${calendarId}-a`,
          start: '2026-03-02T09:00:00',
          timeZone: 'Europe/Berlin',
        }),
        occurrence({
          providerEventId: `${calendarId}-b`,
          start: '2026-03-03T09:00:00',
          timeZone: 'Europe/Berlin',
        }),
      ]);
    principal = {
      ...owner,
      clientId: 'c',
      grantId: 'g',
      scopes: ['calendar:read'],
      calendars: [...calendarIds, liveId].map((calendarId) => ({ calendarId, detailLevel: 'full' })),
      privateDetails: false,
      policy: defaultPolicy,
    };
  });
  after(() => handle.close());

  /**
   * Deps whose copies all answer, counting the copies asked, the queries of events' rows and the
   * calendars' checks answered when the copies were asked for; `onQuery` runs at each query of
   * the copies.
   */
  const depsCounting = (onQuery: () => void, slots = workSlots(4)) => {
    const asked = new Set<unknown>();
    const counted = {
      rowReads: 0,
      copies: () => asked.size,
      calendarChecks: 0,
      copiesAskedFor: [] as { ids: readonly string[]; calendarChecks: number }[],
      statements: [] as string[],
    };
    const counter: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        const query = handle.db.getExecutor().compileQuery(node, queryId);
        counted.statements.push(query.sql);
        if (/from calendars c join connected_accounts a/.test(query.sql)) checks.add(queryId);
        if (query.sql.includes('select id, event_id, occurrence_id, data')) counted.rowReads += 1;
        else if (query.sql.includes('from copy_occurrences')) {
          for (const value of query.parameters) if (calendarIds.includes(value as string)) asked.add(value);
          onQuery();
        }
        return node;
      },
      transformResult: async ({ result, queryId }) => {
        if (checks.has(queryId)) counted.calendarChecks += 1;
        return result;
      },
    };
    const checks = new WeakSet<object>();
    const deps: CalendarDeps = {
      db: handle.db.withPlugin(counter),
      clock: new TestClock(),
      box: createSecretBox(secretKey),
      providers: { caldav: slowProvider },
      ids,
      readDeadlineMs: 1_000,
      readSlots: slots,
      copies: {
        forRead: async (ids) => {
          counted.copiesAskedFor.push({ ids, calendarChecks: counted.calendarChecks });
          const keys = await copyKeys(handle.db);
          const copied = ids.filter((id) => id !== liveId);
          return new Map(copied.map((id) => [id, freshCopy(id, keys.get(id)!)]));
        },
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
    assert.equal(read.events.length, 6);
    assert.equal(counted.copies(), 3);
    assert.equal(counted.rowReads, 1);
  });

  it("asks for the copies beside the calendars' check, once", async () => {
    const { deps, counted } = depsCounting(() => {});
    const read = await readEvents(deps, principal, request());
    assert.equal(read.events.length, 6);
    assert.deepEqual(counted.copiesAskedFor, [{ ids: calendarIds, calendarChecks: 0 }]);
    assert.equal(counted.calendarChecks, 1);
  });

  it("never reads an account's sealed credentials, nor a whole row of accounts or calendars", async () => {
    const { deps, counted } = depsCounting(() => {});
    await readEvents(deps, principal, request());
    const accounts = counted.statements.filter((text) => /connected_accounts/.test(text));
    assert.ok(accounts.length > 0, 'the accounts are looked up');
    for (const text of counted.statements) {
      assert.doesNotMatch(text, /credentials/, text);
      assert.doesNotMatch(text, /select \* from "?(connected_accounts|calendars)"?/, text);
    }
  });

  it('asks for no copy of a calendar outside the grant, and refuses the read', async () => {
    const { deps, counted } = depsCounting(() => {});
    const stranger = 'cal_not_granted';
    await assert.rejects(
      readEvents(deps, principal, {
        ...request(),
        calendarIds: [calendarIds[0]!, stranger, calendarIds[0]!],
      }),
      { code: 'calendar_not_permitted' },
    );
    // Asked beside the check or not at all, never of a calendar the grant does not hold.
    const askedIds = counted.copiesAskedFor.flatMap((asked) => asked.ids);
    assert.ok(
      askedIds.every((id) => calendarIds.includes(id)),
      `asked for ${askedIds.join(', ')}`,
    );
    assert.equal(counted.copies(), 0);
  });

  it('asks no copy once the client has gone', async () => {
    const gone = new AbortController();
    gone.abort();
    const { deps, counted } = depsCounting(() => {});
    await assert.rejects(readEvents(deps, principal, request(), { signal: gone.signal }), {
      name: 'AbortError',
    });
    assert.equal(counted.copies(), 0);
  });

  it('reads no event once the client has gone while the places were chosen', async () => {
    const gone = new AbortController();
    const { deps, counted } = depsCounting(() => gone.abort());
    await assert.rejects(readEvents(deps, principal, request(), { signal: gone.signal }), {
      name: 'AbortError',
    });
    assert.equal(counted.copies(), 3);
    assert.equal(counted.rowReads, 0);
  });

  it('waits in line while every slot is held, and leaves it unread once the client has gone', async () => {
    const slots = workSlots(1);
    let free!: () => void;
    const held = slots.run(() => new Promise<void>((resolve) => (free = resolve)));
    const gone = new AbortController();
    const { deps, counted } = depsCounting(() => {}, slots);
    const waiting = readEvents(deps, principal, request(), { signal: gone.signal });
    // Its statements before the line may take a turn of the loop or two (the driver yields).
    for (let turns = 0; slots.waiting === 0 && turns < 100; turns++)
      await new Promise((resolve) => setImmediate(resolve));
    assert.equal(slots.waiting, 1);
    assert.equal(counted.copies(), 0);
    gone.abort();
    await assert.rejects(waiting, { name: 'AbortError' });
    assert.equal(slots.waiting, 0);
    assert.equal(counted.copies(), 0);
    free();
    await held;
    // The slot it never took is free for the next read.
    const next = await readEvents(depsCounting(() => {}, slots).deps, principal, request());
    assert.equal(next.events.length, 6);
  });

  it("holds no slot while a live calendar's provider is waited for", async () => {
    const slots = workSlots(1);
    const { deps } = depsCounting(() => {}, slots);
    providerAsked = 0;
    const mixed = readEvents(deps, principal, { ...request(), calendarIds: [liveId, calendarIds[0]!] });
    for (let turns = 0; providerAsked === 0 && turns < 100; turns++)
      await new Promise((resolve) => setImmediate(resolve));
    assert.equal(providerAsked, 1);
    // The one slot is free while the provider has not answered: a read of copies alone goes through.
    const copiesOnly = await readEvents(deps, principal, request());
    assert.equal(copiesOnly.events.length, 6);
    assert.equal(slots.waiting, 0);
    answerProvider();
    const read = await mixed;
    assert.deepEqual(read.excluded, []);
    assert.deepEqual(
      read.events.map((placed) => placed.event.calendarId).sort(),
      [calendarIds[0], calendarIds[0], liveId].sort(),
    );
  });
});
