/** The span of time a calendar's copy holds, and the sync settings read from the config. */
import type { Config } from '../config/config.ts';
import type { TimeWindow } from '../domain/window.ts';

export interface SyncSettings {
  intervalMs: number;
  /** How long a sync may hold a calendar between two batches before another instance may take it over. */
  leaseMs: number;
  maxAgeMs: number;
  horizonPastDays: number;
  horizonFutureDays: number;
}

export function syncSettings(sync: Config['sync']): SyncSettings {
  return {
    intervalMs: sync.intervalSeconds * 1000,
    leaseMs: sync.leaseSeconds * 1000,
    maxAgeMs: sync.maxAgeSeconds * 1000,
    horizonPastDays: sync.horizonPastDays,
    horizonFutureDays: sync.horizonFutureDays,
  };
}

/** From midnight UTC `horizonPastDays` ago to midnight UTC `horizonFutureDays` ahead: stable through a day. */
export function syncHorizon(now: Temporal.Instant, settings: SyncSettings): TimeWindow {
  const today = now.toZonedDateTimeISO('UTC').toPlainDate();
  const midnight = (date: Temporal.PlainDate) => date.toZonedDateTime('UTC').toInstant();
  return {
    start: midnight(today.subtract({ days: settings.horizonPastDays })),
    end: midnight(today.add({ days: settings.horizonFutureDays })),
  };
}

const dayMs = 86_400_000;

/** Whether a read of `window` can be answered from a copy holding `horizon` (a day's margin for floating times). */
export const insideHorizon = (
  window: { startMs: number; endMs: number },
  horizon: { start: number | null; end: number | null },
): boolean =>
  horizon.start !== null &&
  horizon.end !== null &&
  window.startMs >= horizon.start + dayMs &&
  window.endMs <= horizon.end - dayMs;
