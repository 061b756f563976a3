/**
 * A write that the provider did not clearly answer (timeout, lost connection, a 5xx, an
 * unexpected failure) is never sent again blindly: the resource is read to learn what
 * happened. The answer is what the read shows — made, not made — or, when even the read
 * fails, `write_outcome_unknown` naming what to check.
 */
import { AppError, isAppError } from '../../errors.ts';

export type Settled = 'applied' | 'not_applied' | 'unknown';

export interface Attempt<T> {
  /** The write's own answer; undefined when a fresh read confirmed it instead. */
  value: T | undefined;
  /** True when the provider did not confirm and a fresh read showed the write made. */
  confirmedByRead: boolean;
}

/** A definite refusal (429 and the like) leaves nothing to find out. */
const definite = (error: unknown): boolean =>
  isAppError(error) && (error.code !== 'provider_unavailable' || error.details?.reason === 'rate_limited');

export interface SettleOptions {
  /** Reads the resource and says whether it shows the write. */
  verify: () => Promise<Settled>;
  /** What the client should look at when the outcome stays unknown. */
  check: Record<string, unknown>;
  /** Said when the write was not made: whether and how trying again is safe. */
  retry: string;
}

export async function attempt<T>(write: () => Promise<T>, options: SettleOptions): Promise<Attempt<T>> {
  try {
    return { value: await write(), confirmedByRead: false };
  } catch (error) {
    if (definite(error)) {
      const known = error as AppError;
      if (known.code !== 'provider_unavailable') throw known;
      throw new AppError('provider_unavailable', `${known.message} Nothing was changed. ${options.retry}`, {
        cause: known,
        retryAfter: known.retryAfter,
        details: { ...known.details, applied: false },
      });
    }
    let settled: Settled;
    try {
      settled = await options.verify();
    } catch {
      settled = 'unknown';
    }
    if (settled === 'applied') return { value: undefined, confirmedByRead: true };
    const reason = isAppError(error) ? error.details?.reason : 'unexpected';
    if (settled === 'not_applied') {
      throw new AppError(
        'provider_unavailable',
        `The calendar did not confirm the change, and a fresh read shows it was not made. ${options.retry}`,
        { cause: error, details: { reason, applied: false } },
      );
    }
    throw new AppError(
      'write_outcome_unknown',
      'The calendar did not confirm the change and could not be read to find out whether it was made. Do not repeat the change blindly: first read the event (or the calendar around its time) and check.',
      { cause: error, details: { reason, check: options.check } },
    );
  }
}
