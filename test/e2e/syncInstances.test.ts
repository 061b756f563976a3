/**
 * Two service processes on one PostgreSQL share the sync work: every granted calendar is synced
 * by exactly one of them (its listing asked of Google once, never by both at once, also when a
 * leased calendar waited in one's queue past its lease), both take part, and a calendar whose instance is killed in the middle of its sync is taken over by the
 * other once the lease has expired — not before.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createSecretBox } from '../../src/lib/encryption.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import type { GoogleEvent } from '../../src/providers/google/wire.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/database.ts';
import { FakeGoogle } from '../fakes/google.ts';
import { freshPostgres, postgresSkip } from '../helpers/databases.ts';
import { freePort } from '../helpers/freePort.ts';
import { seedReadGrant, seedUser, seedWorkspace } from '../helpers/seed.ts';
import { type ServiceProcess, startService } from '../helpers/serviceProcess.ts';

const skip = await postgresSkip('the tests of several service processes');

const pageSize = 50;
const leaseSeconds = 5;
/**
 * Every Calendar API answer comes this late, so the syncs of the two processes overlap, and the
 * last calendars one round leases wait in its queue past their lease: the other process's rounds
 * find those leases expired and take them, and still no calendar may be listed twice.
 */
const latencyMs = 450;
/** Twelve calendars of 60 to 300 events (2 to 6 pages), and one the fake holds back. */
const shared = Array.from({ length: 12 }, (_, i) => ({ id: `team-${i}`, events: 60 + 80 * (i % 4) }));
const held = { id: 'held', events: 120 };

function eventsOf(calendarId: string, count: number): GoogleEvent[] {
  const today = Temporal.Now.plainDateISO('UTC');
  return Array.from({ length: count }, (_, i) => {
    const day = today.add({ days: (i % 200) - 30 });
    return {
      id: `${calendarId.replace('-', '')}e${i}`,
      summary: `Meeting ${i}`,
      start: { dateTime: `${day}T09:00:00`, timeZone: 'Europe/Berlin' },
      end: { dateTime: `${day}T10:00:00`, timeZone: 'Europe/Berlin' },
    };
  });
}

const pagesOf = (events: number) => Math.ceil(events / pageSize);

async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await delay(100);
  }
}

describe('two service processes on one PostgreSQL', { skip }, () => {
  let database: DatabaseHandle & { url: string };
  let google: FakeGoogle;
  let first: ServiceProcess;
  let second: ServiceProcess;
  /** Our calendar ids by Google's. */
  const ids = new Map<string, string>();
  let owner: { userId: string; workspaceId: string };

  /** The Calendar API requests for one calendar's events: pages and, apart, the first pages of full listings. */
  const requestsFor = (googleId: string) => {
    const all = google.requests.filter((r) => r.url.startsWith(`/calendar/v3/calendars/${googleId}/events?`));
    return {
      pages: all.length,
      fullListings: all.filter((r) => !/[?&](pageToken|syncToken)=/.test(r.url)).length,
    };
  };
  const syncLogs = (service: ServiceProcess, outcome = 'calendar synced') =>
    service.logs.filter((line) => line.msg === outcome);
  const copy = (calendarId: string) =>
    database.db
      .selectFrom('calendar_copies')
      .select(['synced_at', 'lease_owner', 'lease_until', 'items', 'staged_items'])
      .where('calendar_id', '=', calendarId)
      .executeTakeFirst();
  const grant = (calendarIds: string[]) => seedReadGrant(database.db, owner, calendarIds);

  before(async () => {
    database = await freshPostgres();
    await migrateToLatest(database);
    google = await FakeGoogle.start({
      maxPageSize: pageSize,
      calendars: [...shared, held].map((c) => ({
        id: c.id,
        summary: c.id,
        timeZone: 'Europe/Berlin',
        accessRole: 'owner' as const,
        events: eventsOf(c.id, c.events),
      })),
    });
    const secretKey = randomBytes(32);
    const userId = await seedUser(database.db, 'person@example.com');
    owner = { userId, workspaceId: await seedWorkspace(database.db, 'Team', [[userId, 'owner']]) };
    // Stored as the service stores an account it connects: credentials sealed with its key, bound to the account.
    const connecting = {
      db: database.db,
      clock: systemClock,
      box: createSecretBox(secretKey),
      providers: {
        google: createGoogleProvider({
          http: new ProviderHttp(),
          config: google.config(),
          clock: systemClock,
        }),
      },
    };
    const { calendars } = await addConnection(
      connecting,
      owner,
      { kind: 'google', ...google.oauth.issue() },
      'Google',
    );
    for (const c of calendars) ids.set(c.providerCalendarId, c.id);

    // The fake uses the first fault that matches: the held calendar's second page waits for a
    // minute (once), every other Calendar API request for `latencyMs`.
    google.inject({ match: /\/calendars\/held\/events\?.*pageToken=/, delayMs: 60_000 });
    google.inject({ delayMs: latencyMs, times: Number.POSITIVE_INFINITY });

    const config = google.config();
    const instance = async () => {
      const port = await freePort();
      return startService({
        APP_ENV: 'test',
        LOG_LEVEL: 'info',
        PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        DATABASE_URL: database.url,
        SECRET_KEY: secretKey.toString('hex'),
        SYNC_ROUND_SECONDS: '1',
        SYNC_LEASE_SECONDS: String(leaseSeconds),
        // Longer than any answer here but the held one: a busy machine never times a request out.
        PROVIDER_TIMEOUT_MS: '30000',
        GOOGLE_CLIENT_ID: config.clientId,
        GOOGLE_CLIENT_SECRET: config.clientSecret,
        GOOGLE_AUTH_URL: config.authorizationUrl,
        GOOGLE_TOKEN_URL: config.tokenUrl,
        GOOGLE_API_URL: config.apiBaseUrl,
      });
    };
    first = await instance();
    second = await instance();
    await Promise.all([first.started, second.started]);
  });

  after(async () => {
    await Promise.all([first?.kill(), second?.kill()]);
    await google?.close();
    await database?.close();
  });

  it('syncs every calendar once, the work split between both, no calendar listed twice', async () => {
    // Granted only now that both listen: whichever leases first takes 8 (its limit per round)
    // and spends seconds on them, so the other's next round, a second later, finds the rest.
    await grant(shared.map((c) => ids.get(c.id)!));
    const synced = async () => {
      for (const c of shared) if ((await copy(ids.get(c.id)!))?.synced_at == null) return undefined;
      return true;
    };
    await until('every calendar is synced', synced);

    for (const c of shared) {
      const row = await copy(ids.get(c.id)!);
      assert.equal(row?.items, c.events, `${c.id}: every event copied`);
      assert.equal(row?.lease_owner, null, `${c.id}: the lease released`);
      assert.deepEqual(
        requestsFor(c.id),
        { pages: pagesOf(c.events), fullListings: 1 },
        `${c.id}: each page asked for once, by one process`,
      );
    }
    // A process logs a sync after its commit: the lines may trail the rows by a moment.
    const logged = () => syncLogs(first).length + syncLogs(second).length;
    await until('every sync is logged', async () => (logged() >= shared.length ? true : undefined));
    const byFirst = syncLogs(first).map((line) => line.calendarId as string);
    const bySecond = syncLogs(second).map((line) => line.calendarId as string);
    assert.ok(
      byFirst.length > 0 && bySecond.length > 0,
      `both took part: ${byFirst.length} and ${bySecond.length}`,
    );
    assert.deepEqual(
      [...byFirst, ...bySecond].sort(),
      shared.map((c) => ids.get(c.id)!).sort(),
      'each calendar synced by exactly one process',
    );
    assert.deepEqual(
      [...syncLogs(first, 'calendar sync failed'), ...syncLogs(second, 'calendar sync failed')],
      [],
    );
    for (const line of [...first.logs, ...second.logs]) {
      assert.doesNotMatch(JSON.stringify(line), /Meeting/, 'no event content in the logs');
    }
  });

  it('takes a killed instance’s calendar over once its lease has expired', async () => {
    const heldId = ids.get(held.id)!;
    // Paused, the second cannot lease the new calendar: the first takes it.
    second.child.kill('SIGSTOP');
    await grant([heldId]);
    // Its first page applied (the lease renewed with it), its second held back by the fake.
    await until('the first is stuck in the middle of the sync', async () =>
      google.requests.some((r) => /\/calendars\/held\/events\?.*pageToken=/.test(r.url) && r.status === 0)
        ? true
        : undefined,
    );
    const leased = await copy(heldId);
    assert.equal(leased?.synced_at, null);
    // Staged, seen by no reader until the sync completes (the lease renewed with it).
    assert.equal(Number(leased?.items), 0, 'nothing of a sync in the middle is served');
    assert.ok(Number(leased?.staged_items) >= 1, 'the first page was staged');
    const leaseUntil = Number(leased?.lease_until);
    await first.kill();
    second.child.kill('SIGCONT');

    // Rounds of the second run every second, but the dead instance's lease holds until it expires.
    await delay(Math.max(0, leaseUntil - 1_000 - Date.now()));
    assert.deepEqual(requestsFor(held.id), { pages: 2, fullListings: 1 }, 'not taken while the lease holds');

    const taken = await until('the second has synced it', async () => {
      const row = await copy(heldId);
      return row?.synced_at == null ? undefined : row;
    });
    assert.ok(Number(taken.synced_at) >= leaseUntil, 'synced after the lease expired');
    assert.equal(taken.items, held.events);
    assert.equal(taken.lease_owner, null);
    // A full listing again: the dead one's position was never saved.
    assert.deepEqual(requestsFor(held.id), { pages: 2 + pagesOf(held.events), fullListings: 2 });
    const heldLogs = () => syncLogs(second).filter((line) => line.calendarId === heldId);
    await until('the sync is logged', async () => (heldLogs().length > 0 ? true : undefined));
    assert.deepEqual(
      heldLogs().map((line) => line.full),
      [true],
    );
  });
});
