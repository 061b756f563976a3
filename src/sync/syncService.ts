/**
 * The sync service of one instance: single-flight syncs per calendar, the periodic round (copies
 * follow the grants, due calendars leased and synced a few at a time), one pending sync per
 * calendar for change notifications, and what reads and writes ask of the copies
 * (calendars/calendarDeps.ts#CalendarCopies).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { CalendarCopies, CopyForRead, OpenConnection, SyncOutcome } from '../calendars/copies.ts';
import type { TimeWindow } from '../domain/window.ts';
import { epochMs } from '../lib/clock.ts';
import { waitAtMost } from '../lib/waitAtMost.ts';
import { copiesOf } from '../store/calendarCopies.ts';
import { forgetInstance, heartbeat, heartbeatMs, leaseDue, markDue } from '../store/copyLeases.ts';
import { reconcileCopies } from '../store/copyMembership.ts';
import { readIndexUpkeep } from '../store/readIndexUpkeep.ts';
import { type SyncDeps, syncCalendar } from './calendarSync.ts';
import { insideHorizon } from './horizon.ts';
import type { PushUpkeep } from './push.ts';

export interface SyncService extends CalendarCopies {
  /** One round: copies reconciled with the grants, the due calendars synced, then push channels tended. */
  runDue(): Promise<number>;
  /** Makes a calendar due at once (a push notification, "Sync now"). */
  markDue(calendarId: string): Promise<void>;
  /**
   * A change notification: the calendar is synced now, or — while a sync of it runs or began
   * less than `noticeSpacingMs` ago — once after that, one sync for every notification meanwhile.
   */
  afterNotice(calendarId: string): Promise<SyncOutcome>;
  /** Resolves once no sync runs or waits here, nor a vacuum of the read index. */
  idle(): Promise<void>;
  /** Runs rounds every `everyMs` until stopped, and says every few seconds that this instance is alive. */
  start(everyMs: number): void;
  stop(): Promise<void>;
}

export interface SyncServiceOptions {
  engine: 'sqlite' | 'postgres';
  /** Calendars synced at once by one instance. */
  concurrency?: number;
  /** How long a read waits for the sync of a stale copy before answering from it. */
  readWaitMs: number;
  /** Told about a round that failed as a whole (the database away). */
  onRoundError?: (error: unknown) => void;
  /** Change-notification channels, tended after each round's syncs (absent: no push). */
  push?: PushUpkeep;
  /** Notifications start a calendar's sync at most this often (default 1 s): a burst costs two syncs. */
  noticeSpacingMs?: number;
  /** PostgreSQL: the read index's table vacuumed once syncs have changed this many of its rows (default 5,000). */
  vacuumEveryRows?: number;
  /** Told about a vacuum of the read index's table that failed (the next is tried after as many rows again). */
  onVacuumError?: (error: unknown) => void;
}

export function createSyncService(given: SyncDeps, options: SyncServiceOptions): SyncService {
  const upkeep =
    options.engine === 'postgres'
      ? readIndexUpkeep(given.db, {
          every: options.vacuumEveryRows ?? 5_000,
          onError: (error) => options.onVacuumError?.(error),
        })
      : undefined;
  const deps: SyncDeps = upkeep === undefined ? given : { ...given, rowsChanged: upkeep.changed };
  const running = new Map<string, Promise<SyncOutcome>>();
  const concurrency = options.concurrency ?? 2;
  let timer: NodeJS.Timeout | undefined;
  let beat: NodeJS.Timeout | undefined;
  let stopped = false;
  let round: Promise<unknown> = Promise.resolve();
  const quit = new AbortController();
  const noticeSpacingMs = options.noticeSpacingMs ?? 1_000;
  /** The sync waiting for a calendar's notifications, and when the last of them began (performance.now). */
  const followUps = new Map<string, Promise<SyncOutcome>>();
  const noticeStarts = new Map<string, number>();

  function syncNow(calendarId: string, leased = false, connection?: OpenConnection): Promise<SyncOutcome> {
    const current = running.get(calendarId);
    if (current !== undefined) return current;
    const started = syncCalendar(deps, calendarId, leased, connection).finally(() =>
      running.delete(calendarId),
    );
    running.set(calendarId, started);
    return started;
  }

  function afterNotice(calendarId: string): Promise<SyncOutcome> {
    const waiting = followUps.get(calendarId);
    if (waiting !== undefined) return waiting;
    const followUp = (async (): Promise<SyncOutcome> => {
      // A sync already running may have read the calendar before the change.
      await running.get(calendarId)?.catch(() => {});
      const wait =
        (noticeStarts.get(calendarId) ?? Number.NEGATIVE_INFINITY) + noticeSpacingMs - performance.now();
      try {
        if (wait > 0) await delay(wait, undefined, { signal: quit.signal, ref: false });
      } catch {
        return 'busy'; // stopping: the calendar is due, another instance or the next start syncs it
      } finally {
        followUps.delete(calendarId);
      }
      const now = performance.now();
      for (const [id, at] of noticeStarts) if (at + noticeSpacingMs < now) noticeStarts.delete(id);
      noticeStarts.set(calendarId, now);
      return syncNow(calendarId);
    })();
    followUps.set(calendarId, followUp);
    return followUp;
  }

  async function idle(): Promise<void> {
    while (running.size + followUps.size > 0)
      await Promise.allSettled([...running.values(), ...followUps.values()]);
    await upkeep?.idle();
  }

  async function runDue(): Promise<number> {
    const now = epochMs(deps.clock);
    await reconcileCopies(deps.db, now);
    const due = await leaseDue(
      deps.db,
      options.engine,
      deps.owner,
      now,
      deps.settings.leaseMs,
      concurrency * 4,
    );
    let next = 0;
    const worker = async () => {
      while (next < due.length) {
        const calendarId = due[next++]!;
        await syncNow(calendarId, true).catch(options.onRoundError);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
    await options.push?.tend();
    return due.length;
  }

  /**
   * The copies that can answer a read of `span`, each said stale or not at `now`, and which of
   * the stale ones a read may sync: not one whose sync failed and whose next try lies ahead (its
   * backoff holds for reads too: answered from the copy at once). `unsynced`: copies whose first
   * sync has not completed (and is not backing off).
   */
  async function usableCopies(
    calendarIds: readonly string[],
    span: { startMs: number; endMs: number },
    now: number,
  ): Promise<{ usable: CopyForRead[]; toSync: string[]; unsynced: string[] }> {
    const usable: CopyForRead[] = [];
    const toSync: string[] = [];
    const unsynced: string[] = [];
    for (const c of (await copiesOf(deps.db, calendarIds)).values()) {
      if (c.syncedAt === null && (c.failures === 0 || c.nextSyncAt <= now)) unsynced.push(c.calendarId);
      if (c.syncedAt === null || c.horizonStart === null || c.horizonEnd === null) continue;
      if (!insideHorizon(span, { start: c.horizonStart, end: c.horizonEnd })) continue;
      const stale = now - c.syncedAt > deps.settings.maxAgeMs || c.nextSyncAt <= now;
      if (stale && (c.failures === 0 || c.nextSyncAt <= now)) toSync.push(c.calendarId);
      usable.push({
        ...c,
        syncedAt: c.syncedAt,
        horizonStart: c.horizonStart,
        horizonEnd: c.horizonEnd,
        stale,
      });
    }
    return { usable, toSync, unsynced };
  }

  async function forRead(
    calendarIds: readonly string[],
    window: TimeWindow,
  ): Promise<Map<string, CopyForRead>> {
    const span = { startMs: window.start.epochMilliseconds, endMs: window.end.epochMilliseconds };
    let { usable, toSync, unsynced } = await usableCopies(calendarIds, span, epochMs(deps.clock));
    // Read live until their first sync completes; started now rather than when a round reaches
    // them (a few at a time), as every read meanwhile costs the provider a live listing.
    for (const calendarId of unsynced) void syncNow(calendarId).catch(() => {});
    if (toSync.length > 0) {
      const syncs = Promise.all(toSync.map((calendarId) => syncNow(calendarId)));
      await waitAtMost(
        syncs.catch(() => {}),
        options.readWaitMs,
      );
      ({ usable } = await usableCopies(
        usable.map((c) => c.calendarId),
        span,
        epochMs(deps.clock),
      ));
    }
    return new Map(usable.map((c) => [c.calendarId, c]));
  }

  async function afterWrite(calendarId: string, connection?: OpenConnection): Promise<void> {
    const work = (async () => {
      // A sync that started before the write may not see it: wait for it, then sync once more.
      await running.get(calendarId)?.catch(() => {});
      return syncNow(calendarId, false, connection);
    })();
    const outcome = await waitAtMost(
      work.catch(() => undefined),
      options.readWaitMs,
    );
    // Not synced in time (or held elsewhere): the next read syncs it first.
    if (outcome !== 'synced' && outcome !== 'gone') await markDue(deps.db, calendarId, epochMs(deps.clock));
  }

  return {
    syncNow: (calendarId) => syncNow(calendarId),
    runDue,
    markDue: (calendarId) => markDue(deps.db, calendarId, epochMs(deps.clock)),
    afterNotice,
    idle,
    forRead,
    afterWrite,
    start(everyMs) {
      stopped = false;
      // Another instance takes this one's leases at once when these stop (a crash, a kill).
      const alive = () => heartbeat(deps.db, deps.owner, epochMs(deps.clock)).catch(options.onRoundError);
      void alive();
      beat = setInterval(alive, heartbeatMs);
      beat.unref();
      const tick = () => {
        round = runDue()
          .catch(options.onRoundError)
          .finally(() => {
            if (stopped) return;
            timer = setTimeout(tick, everyMs);
            timer.unref();
          });
      };
      timer = setTimeout(tick, 0);
      timer.unref();
    },
    async stop() {
      stopped = true;
      quit.abort();
      clearTimeout(timer);
      clearInterval(beat);
      timer = undefined;
      await round;
      await idle();
      if (beat !== undefined) await forgetInstance(deps.db, deps.owner).catch(options.onRoundError);
      beat = undefined;
    },
  };
}
