/**
 * Requests per grant per minute on the protected resources, so one runaway assistant cannot
 * exhaust a person's provider quotas or the service. A fixed window of one minute aligned on the
 * clock, so that every instance counts the same window; the count is kept in memory (one process
 * on SQLite) or shared by every instance (PostgreSQL, or Redis when configured). A shared count
 * that fails falls back to this instance's own (told once per spell of failures): the budget then
 * holds per instance until the shared store answers again — requests are neither refused for it
 * nor unlimited.
 *
 * A shared count is claimed a few requests at a time: the first request of a grant's window
 * claims one, each further claim twice the last, up to a block of `blockFor(perMinute)`; the
 * instance spends its block without asking again. A busy grant costs the shared store one write
 * in sixteen requests rather than one each (on PostgreSQL, a round trip before every read);
 * a grant seldom used is counted exactly. What an instance claims and leaves unspent when the
 * window ends counts against the grant on every instance: at most a block less one per instance.
 */
import { AppError } from '../errors.ts';
import { type Clock, epochMs } from '../lib/clock.ts';
import { budgetWindowMs } from '../store/grantBudgetWindows.ts';

export interface GrantBudget {
  /** Counts one request of the grant; `rate_limited` with the seconds to wait when over. */
  take(grantId: string): Promise<void>;
}

/**
 * Counts `requests` requests of a grant in the window starting at `windowStart`; returns the
 * window's count with them.
 */
export type RequestCounter = (grantId: string, windowStart: number, requests: number) => Promise<number>;

/** The most requests one claim takes: a thirty-second of the budget, from 1 to 16. */
const blockFor = (perMinute: number) => Math.max(1, Math.min(16, Math.floor(perMinute / 32)));

/** What this instance holds of a grant's window. */
interface Claimed {
  start: number;
  /** Requests claimed and not yet spent. */
  left: number;
  /** The size of the next claim. */
  next: number;
  /** The claim under way: requests that find nothing left wait for it rather than claim too. */
  claiming: Promise<boolean> | undefined;
}

/** Grants whose window this instance holds at most (past it, every window is forgotten). */
const heldAtMost = 10_000;

export function createGrantBudget(count: RequestCounter, clock: Clock, perMinute: number): GrantBudget {
  const block = blockFor(perMinute);
  const claimed = new Map<string, Claimed>();
  /**
   * Claims the window's next block for one request and those after it; what the budget leaves
   * of it is this instance's to spend. Past the budget, each request is counted alone, as before
   * it (a count shared again after a failure is asked again).
   */
  const claim = async (grantId: string, held: Claimed): Promise<boolean> => {
    const requests = held.next;
    const total = await count(grantId, held.start, requests);
    const granted = Math.min(requests, perMinute - (total - requests));
    held.next = granted < requests ? 1 : Math.min(block, requests * 2);
    if (granted <= 0) return false;
    held.left += granted - 1;
    return true;
  };
  return {
    async take(grantId) {
      const now = epochMs(clock);
      const start = now - (now % budgetWindowMs);
      let held = claimed.get(grantId);
      if (held === undefined || held.start !== start) {
        if (held === undefined && claimed.size >= heldAtMost) claimed.clear();
        held = { start, left: 0, next: 1, claiming: undefined };
        claimed.set(grantId, held);
      }
      for (;;) {
        if (held.left > 0) {
          held.left -= 1;
          return;
        }
        if (held.claiming === undefined) break;
        await held.claiming;
      }
      const claiming = claim(grantId, held);
      held.claiming = claiming;
      const granted = await claiming.finally(() => {
        if (held.claiming === claiming) held.claiming = undefined;
      });
      if (granted) return;
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
  return async (grantId, start, requests) => {
    let current = windows.get(grantId);
    if (current === undefined || current.start !== start) {
      if (windows.size > heldAtMost) windows.clear();
      current = { start, count: 0 };
      windows.set(grantId, current);
    }
    current.count += requests;
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
  return async (grantId, start, requests) => {
    try {
      const count = await shared(grantId, start, requests);
      if (failing) log.recovered();
      failing = false;
      return count;
    } catch (error) {
      if (!failing) log.failing(error);
      failing = true;
      return local(grantId, start, requests);
    }
  };
}
