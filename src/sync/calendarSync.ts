/**
 * One sync of one calendar's copy: the lease taken (or already held), the adapter's batches
 * applied one transaction at a time (all but the last staged, so readers see only complete
 * syncs), the position saved only with the last one, the whole within its bounds (rounds, items,
 * bytes, time); a failure leaves the copy as it was, counts, and puts the next try off (the
 * provider's Retry-After, else a doubling backoff up to the sync interval). The log says which
 * calendar and why, never content.
 */
import { type ConnectionDeps, withConnection } from '../calendars/connections/connections.ts';
import type { OpenConnection, SyncOutcome } from '../calendars/copies.ts';
import type { EventIdCodec } from '../calendars/eventIds.ts';
import { exclusionReason } from '../calendars/reads/readEvents.ts';
import { type SyncLimits, syncBoundExceeded, syncLimits } from '../domain/budget.ts';
import type { ProviderKind } from '../domain/providerFacts.ts';
import { isAppError } from '../errors.ts';
import { epochMs } from '../lib/clock.ts';
import { listingSync } from '../providers/listingSync.ts';
import type { AccountAccess } from '../providers/port.ts';
import { providerFor } from '../providers/registry.ts';
import { copyForSync, itemVersions } from '../store/calendarCopies.ts';
import { findAccount, findCalendars } from '../store/connectedAccounts.ts';
import { applyBatch, failuresSoFar, recordSyncFailure } from '../store/copyBatches.ts';
import { LeaseLost, takeLease } from '../store/copyLeases.ts';
import { despiteStorageOutage, storageFull } from '../store/storageFull.ts';
import { type SyncSettings, syncHorizon } from './horizon.ts';

export interface SyncDeps extends ConnectionDeps {
  /** This instance's name on the leases it takes. */
  owner: string;
  /** Seals the ids of the occurrences copied (the reads' codec). */
  ids: EventIdCodec;
  settings: SyncSettings;
  /** What one sync may spend (domain/budget.ts#syncLimits unless a test says otherwise). */
  limits?: SyncLimits;
  log?: (entry: SyncLogEntry) => void;
  /** Told the rows of the copy's table a completed sync wrote or removed (store/readIndexUpkeep.ts). */
  rowsChanged?: (rows: number) => void;
}

export interface SyncLogEntry {
  calendarId: string;
  provider: ProviderKind;
  outcome: 'synced' | 'failed';
  /** From the lease taken to the outcome. */
  durationMs: number;
  full?: boolean;
  batches?: number;
  upserts?: number;
  removals?: number;
  reason?: string;
  failures?: number;
  /** Which of the sync's bounds stopped it (reason too_large or timeout). */
  bound?: string;
  /** The database's own words when it could not save (reason storage_full). */
  storage?: string;
}

const firstRetryMs = 30_000;

const since = (started: number) => Math.round(performance.now() - started);

/** How long to wait before trying a failing calendar again. */
function retryDelay(error: unknown, failures: number, intervalMs: number): number {
  const asked = isAppError(error) ? error.retryAfter : undefined;
  if (asked !== undefined) return Math.max(asked * 1000, 1000);
  return Math.min(firstRetryMs * 2 ** failures, intervalMs);
}

/** Which of the sync's bounds stopped it, for the log. */
const boundOf = (error: unknown): { bound?: string } => {
  const bound = isAppError(error) ? error.details?.bound : undefined;
  return typeof bound === 'string' ? { bound } : {};
};

/**
 * `leased`: a round leased the calendar; it is synced only while that lease is still this
 * instance's. `connection`: the calendar's, as the write just made opened it (else looked up).
 */
export async function syncCalendar(
  deps: SyncDeps,
  calendarId: string,
  leased = false,
  connection?: OpenConnection,
): Promise<SyncOutcome> {
  const now = epochMs(deps.clock);
  const started = performance.now();
  const copy = await takeLease(deps.db, calendarId, deps.owner, now, deps.settings.leaseMs, leased);
  if (copy === undefined)
    // No lease taken: another sync holds it, or there is no copy to lease.
    return (await copyForSync(deps.db, calendarId)) === undefined ? 'gone' : 'busy';
  const calendar = connection?.calendar ?? (await findCalendars(deps.db, [calendarId]))[0];
  const account = connection?.account ?? (calendar && (await findAccount(deps.db, calendar.accountId)));
  if (calendar === undefined || account === undefined) return 'gone';

  const horizon = syncHorizon(deps.clock.now(), deps.settings);
  // The horizon moves with the days; a copy whose end has fallen a week behind is synced anew.
  const movedOn =
    copy.horizonEnd === null || copy.horizonEnd < horizon.end.epochMilliseconds - 7 * 86_400_000;
  const state = movedOn ? undefined : (copy.state ?? undefined);
  const provider = providerFor(deps.providers, account.provider);
  const sync = provider.sync ?? listingSync(provider);
  const totals = { batches: 0, upserts: 0, removals: 0, full: false };
  let rowsChanged = 0;
  const limits = deps.limits ?? syncLimits;
  const spent = { items: 0, bytes: 0 };
  let runGeneration: number | undefined;
  let copied: string | undefined;
  let staged = false;
  let completed = false;
  try {
    const copyBatches = async (access: AccountAccess) => {
      const batches = sync.syncCalendar(access, calendar, {
        horizon,
        ...(state === undefined ? {} : { state }),
        knownVersions: () => itemVersions(deps.db, calendarId),
      });
      for await (const batch of batches) {
        const at = epochMs(deps.clock);
        spent.items += batch.upserts.length + batch.removals.length + batch.skipped.length;
        if (totals.batches + 1 > limits.rounds) throw syncBoundExceeded('rounds', limits.rounds);
        if (spent.items > limits.items) throw syncBoundExceeded('items', limits.items);
        if (at - now > limits.timeMs) throw syncBoundExceeded('timeMs', limits.timeMs);
        const last = batch.nextState !== undefined;
        const written = await applyBatch(deps.db, {
          calendarId,
          owner: deps.owner,
          ids: deps.ids,
          now: at,
          leaseMs: deps.settings.leaseMs,
          full: batch.full,
          upserts: batch.upserts,
          removals: batch.removals,
          skipped: batch.skipped.map((item, i) => ({
            key: item.providerEventId ?? `skipped:${i}`,
            reason: item.reason,
          })),
          ...(batch.full ? { runGeneration } : {}),
          // All but the last batch are staged: no reader sees half a sync.
          ...(last ? { swap: staged } : { stage: staged ? 'more' : 'first' }),
          ...(copied === undefined ? {} : { copied }),
          bytes: { spent: spent.bytes, limit: limits.bytes },
          ...(batch.nextState === undefined
            ? {}
            : {
                end: {
                  state: batch.nextState,
                  horizon: { start: horizon.start.epochMilliseconds, end: horizon.end.epochMilliseconds },
                  nextSyncAt: at + deps.settings.intervalMs,
                },
              }),
        });
        runGeneration = batch.full ? written.generation : undefined;
        copied = written.copied;
        spent.bytes += written.bytes;
        rowsChanged += written.rowsChanged;
        staged ||= !last;
        totals.batches += 1;
        totals.upserts += batch.upserts.length;
        totals.removals += batch.removals.length;
        totals.full ||= batch.full;
        if (last) {
          completed = true;
          break;
        }
      }
    };
    await withConnection(deps, account, copyBatches, connection?.access);
    if (!completed) throw new Error('the sync ended without a position');
    if (rowsChanged > 0) deps.rowsChanged?.(rowsChanged);
    deps.log?.({
      calendarId,
      provider: account.provider,
      outcome: 'synced',
      durationMs: since(started),
      ...totals,
    });
    return 'synced';
  } catch (error) {
    if (error instanceof LeaseLost) return 'busy';
    const full = storageFull(error);
    const reason = full === undefined ? (exclusionReason(error) ?? 'provider_unavailable') : 'storage_full';
    const failures = await failuresSoFar(deps.db, calendarId);
    // A full or absent database cannot hold the failure either: the log says it, the next round tries again.
    await recordSyncFailure(deps.db, calendarId, deps.owner, {
      reason,
      nextSyncAt: epochMs(deps.clock) + retryDelay(error, failures, deps.settings.intervalMs),
      forgetState: false,
    }).catch(despiteStorageOutage);
    deps.log?.({
      calendarId,
      provider: account.provider,
      outcome: 'failed',
      durationMs: since(started),
      reason,
      failures: failures + 1,
      ...boundOf(error),
      ...(full === undefined ? {} : { storage: String(full.cause) }),
    });
    if (full === undefined && exclusionReason(error) === undefined && !isAppError(error)) throw error;
    return 'failed';
  }
}
