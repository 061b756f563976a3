/**
 * Requests per grant per minute on the protected resources, so one runaway assistant cannot
 * exhaust a person's provider quotas or the service. A fixed window of one minute aligned on the
 * clock, so that every instance counts the same window; the count is kept in memory (one process
 * on SQLite) or shared by every instance (PostgreSQL, or Redis when configured). A shared count
 * that fails falls back to this instance's own (told once per spell of failures): the budget then
 * holds per instance until the shared store answers again — requests are neither refused for it
 * nor unlimited.
 */
import { AppError } from '../errors.ts';
import { type Clock, epochMs } from '../lib/clock.ts';
import { budgetWindowMs } from '../store/grantBudgetWindows.ts';

export interface GrantBudget {
  /** Counts one request of the grant; `rate_limited` with the seconds to wait when over. */
  take(grantId: string): Promise<void>;
}

/** Counts one request of a grant in the window starting at `windowStart`; returns the window's count. */
export type RequestCounter = (grantId: string, windowStart: number) => Promise<number>;

export function createGrantBudget(count: RequestCounter, clock: Clock, perMinute: number): GrantBudget {
  return {
    async take(grantId) {
      const now = epochMs(clock);
      const start = now - (now % budgetWindowMs);
      if ((await count(grantId, start)) <= perMinute) return;
      throw new AppError(
        'rate_limited',
        `At most ${perMinute} requests per minute for one grant; retry later.`,
        {
          retryAfter: Math.max(1, Math.ceil((start + budgetWindowMs - now) / 1000)),
        },
      );
    },
  };
}

/** This process's own count. */
export function memoryCounter(): RequestCounter {
  const windows = new Map<string, { start: number; count: number }>();
  return async (grantId, start) => {
    let current = windows.get(grantId);
    if (current === undefined || current.start !== start) {
      if (windows.size > 10_000) windows.clear();
      current = { start, count: 0 };
      windows.set(grantId, current);
    }
    current.count += 1;
    return current.count;
  };
}

export interface FallbackLog {
  /** The shared count failed; the local one counts until it answers again. */
  failing(error: unknown): void;
  recovered(): void;
}

/** The shared count, or the local one while the shared one fails. */
export function withFallback(
  shared: RequestCounter,
  local: RequestCounter,
  log: FallbackLog,
): RequestCounter {
  let failing = false;
  return async (grantId, start) => {
    try {
      const count = await shared(grantId, start);
      if (failing) log.recovered();
      failing = false;
      return count;
    } catch (error) {
      if (!failing) log.failing(error);
      failing = true;
      return local(grantId, start);
    }
  };
}
