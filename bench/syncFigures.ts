/**
 * The sync figures of `npm run bench`: a 10,000-event Google calendar (the fake Google, over
 * loopback HTTP) synced in full and then incrementally after one change, through the service's
 * own sync engine and database — requests to the provider and time, each.
 */
import { addConnection } from '../src/calendars/connections/connections.ts';
import type { AppContext } from '../src/context.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createGoogleProvider } from '../src/providers/google/adapter.ts';
import { ProviderHttp } from '../src/providers/providerHttp.ts';
import { reconcileCopies } from '../src/store/copyMembership.ts';
import type { SyncService } from '../src/sync/syncService.ts';
import { FakeGoogle } from '../test/fakes/google.ts';
import { grantToken } from '../test/helpers/grantToken.ts';
import { seedUser, seedWorkspace } from '../test/helpers/seed.ts';

export const bigCalendarEvents = 10_000;
const calendarId = 'big@group.calendar.google.com';

/** 10,000 one-hour events, four a day from 2026-01-05, in Berlin. */
function events() {
  return Array.from({ length: bigCalendarEvents }, (_, i) => {
    const day = Temporal.PlainDate.from('2026-01-05').add({ days: Math.floor(i / 4) });
    const start = Temporal.PlainDateTime.from(`${day}T${String(8 + 2 * (i % 4)).padStart(2, '0')}:00:00`);
    const at = (t: Temporal.PlainDateTime) => ({ dateTime: t.toString(), timeZone: 'Europe/Berlin' });
    return { id: `big${i}`, summary: `Meeting ${i}`, start: at(start), end: at(start.add({ hours: 1 })) };
  });
}

export interface SyncFigures {
  fullMs: number;
  fullRequests: number;
  /** The median of five. */
  incrementalMs: number;
  /** The most any of the five made. */
  incrementalRequests: number;
}

/** Measures on a service built by `service` with the given Google provider. */
export async function syncFigures(
  service: (
    providers: AppContext['providers'],
  ) => Promise<{ ctx: AppContext; sync: SyncService; close(): Promise<void> }>,
): Promise<SyncFigures> {
  const google = await FakeGoogle.start({
    clock: systemClock,
    calendars: [
      { id: calendarId, summary: 'Big', timeZone: 'Europe/Berlin', accessRole: 'owner', events: events() },
    ],
    maxPageSize: 2500,
  });
  const http = new ProviderHttp({ timeoutMs: 30_000 });
  const { ctx, sync, close } = await service({
    google: createGoogleProvider({ http, config: google.config(), clock: systemClock }),
  });
  try {
    const userId = await seedUser(ctx.db, 'sync@example.test');
    const workspaceId = await seedWorkspace(ctx.db, 'Sync', [[userId, 'owner']]);
    const { calendars } = await addConnection(
      ctx,
      { userId, workspaceId },
      { kind: 'google', ...google.oauth.issue() },
      'sync@example.test',
    );
    const id = calendars[0]!.id;
    await grantToken(ctx, { userId, workspaceId, calendars: [{ calendarId: id, detailLevel: 'full' }] });
    await reconcileCopies(ctx.db, systemClock.now().epochMilliseconds);

    google.counts.reset();
    let started = performance.now();
    if ((await sync.syncNow(id)) !== 'synced') throw new Error('the full sync failed');
    const fullMs = performance.now() - started;
    const fullRequests = google.counts.count({});

    // One change, then one sync, five times: the median time, the most requests.
    const times: number[] = [];
    let incrementalRequests = 0;
    for (let round = 0; round < 5; round++) {
      google.calendars.changeEvent(calendarId, `big${1000 * (round + 1)}`, { summary: `Moved ${round}` });
      google.counts.reset();
      started = performance.now();
      if ((await sync.syncNow(id)) !== 'synced') throw new Error('the incremental sync failed');
      times.push(performance.now() - started);
      incrementalRequests = Math.max(incrementalRequests, google.counts.count({}));
    }
    const incrementalMs = times.sort((a, b) => a - b)[2]!;
    return { fullMs, fullRequests, incrementalMs, incrementalRequests };
  } finally {
    await close();
    await google.close();
  }
}
