/**
 * Requests per grant per minute on the protected resources, so one runaway assistant cannot
 * exhaust a person's provider quotas or the service. A fixed window per grant, in memory: each
 * instance counts its own share.
 */
import { AppError } from '../errors.ts';
import { type Clock, epochMs } from '../lib/clock.ts';

export interface GrantLimiter {
  /** Counts one request of the grant; `rate_limited` with the seconds to wait when over. */
  take(grantId: string): void;
}

const windowMs = 60_000;

export function createGrantLimiter(clock: Clock, perMinute: number): GrantLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    take(grantId) {
      const now = epochMs(clock);
      let current = windows.get(grantId);
      if (current === undefined || now - current.start >= windowMs) {
        if (windows.size > 10_000) windows.clear();
        current = { start: now, count: 0 };
        windows.set(grantId, current);
      }
      current.count += 1;
      if (current.count > perMinute) {
        throw new AppError(
          'rate_limited',
          `At most ${perMinute} requests per minute for one grant; retry later.`,
          {
            retryAfter: Math.max(1, Math.ceil((current.start + windowMs - now) / 1000)),
          },
        );
      }
    },
  };
}
