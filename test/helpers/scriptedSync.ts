/**
 * Synced copies driven by a script: a provider whose sync yields the batches a test writes, and
 * one granted calendar on a database with sync services and deps for any instance name.
 */
import { randomBytes } from 'node:crypto';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { AppContext } from '../../src/context.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { createSecretBox } from '../../src/lib/encryption.ts';
import { createMetrics } from '../../src/lib/metrics.ts';
import type { CalendarProvider, SyncBatch, SyncRequest } from '../../src/providers/port.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import type { SyncDeps } from '../../src/sync/calendarSync.ts';
import type { SyncSettings } from '../../src/sync/horizon.ts';
import { createSyncService, type SyncService, type SyncServiceOptions } from '../../src/sync/syncService.ts';
import { TestClock } from './clock.ts';
import { memoryProvider, occurrence, seedMemoryAccount } from './memoryCalendars.ts';
import { seedReadGrant, seedUser, seedWorkspace } from './seed.ts';

export const settings: SyncSettings = {
  intervalMs: 300_000,
  leaseMs: 120_000,
  maxAgeMs: 60_000,
  horizonPastDays: 365,
  horizonFutureDays: 730,
};

export const at = (start: string, id: string, title = id): ProviderOccurrence =>
  occurrence({ providerEventId: id, start, timeZone: 'Europe/Berlin', title, description: `About ${title}` });

/** A provider whose sync yields the batches a test scripts, one script per sync. */
export function scriptedProvider(scripts: Array<(request: SyncRequest) => AsyncGenerator<SyncBatch>>) {
  const base = memoryProvider('google', new Map([['cal-1', { name: 'One', occurrences: [] }]]));
  const requests: SyncRequest[] = [];
  const provider: CalendarProvider<'google'> = {
    ...base,
    sync: {
      syncCalendar(_account, _calendar, request) {
        requests.push(request);
        const script = scripts.shift();
        if (script === undefined) throw new Error('no sync scripted');
        return script(request);
      },
    },
  };
  return { provider, requests };
}

export const item = (key: string, occurrences: ProviderOccurrence[], version = 'v1') => ({
  key,
  version,
  occurrences,
});

/** A batch of a full sync unless said otherwise; empty lists by default. */
export const batch = (fields: Partial<SyncBatch>): SyncBatch => ({
  full: true,
  upserts: [],
  removals: [],
  skipped: [],
  ...fields,
});

/** A person with one calendar of `provider` granted at `titles`; services and deps per instance name. */
export async function scriptedCopy(
  handle: DatabaseHandle,
  engine: SyncServiceOptions['engine'],
  provider: CalendarProvider<'google'>,
  options: { clock?: TestClock; deps?: Partial<SyncDeps>; service?: Partial<SyncServiceOptions> } = {},
) {
  const clock = options.clock ?? new TestClock();
  const secretKey = randomBytes(32);
  const ctx = {
    config: loadConfig({ APP_ENV: 'test' }),
    db: handle.db,
    clock,
    secretKey,
    box: createSecretBox(secretKey),
    providers: { google: provider },
    connectors: {},
    metrics: createMetrics(),
    ping: async () => {},
  } as AppContext;
  const userId = await seedUser(handle.db, `${randomBytes(4).toString('hex')}@example.test`);
  const workspaceId = await seedWorkspace(handle.db, 'W', [[userId, 'owner']]);
  const [calendarId] = await seedMemoryAccount(ctx, { userId, workspaceId }, provider);
  const grantId = `grt_${randomBytes(6).toString('hex')}`;
  await seedReadGrant(handle.db, { userId, workspaceId }, [calendarId!], {
    id: grantId,
    detailLevel: 'titles',
  });
  const deps = (owner: string): SyncDeps => ({
    db: handle.db,
    clock,
    box: ctx.box,
    providers: ctx.providers,
    ids: createEventIds(ctx.secretKey),
    owner,
    settings,
    ...options.deps,
  });
  const service = (owner: string): SyncService =>
    createSyncService(deps(owner), { engine, readWaitMs: 1000, ...options.service });
  return { ctx, calendarId: calendarId!, grantId, userId, workspaceId, clock, service, deps };
}
