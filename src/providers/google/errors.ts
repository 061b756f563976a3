/**
 * Calendar API failures as typed errors. Google signals rate limits with 403 as well as 429
 * (reasons in the `usageLimits` domain); ProviderHttp already retried 429/5xx for reads.
 */
import { AppError, type ErrorReason } from '../../errors.ts';
import { retryAfterMs } from '../providerHttp.ts';
import { providerName } from './config.ts';
import type { GoogleErrorBody } from './wire.ts';

const rateLimitReasons = new Set([
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'dailyLimitExceeded',
  'quotaExceeded',
]);

export async function googleFailure(response: Response, now: Temporal.Instant): Promise<AppError> {
  const body = (await response.json().catch(() => ({}))) as GoogleErrorBody;
  const errors = body.error?.errors ?? [];
  const reasons = errors.map((error) => error.reason ?? '');
  const status = response.status;
  const details = (reason: ErrorReason) => ({ details: { reason, status, googleReason: reasons[0] } });

  if (status === 400) {
    return new AppError('invalid_request', `${providerName} rejected the request.`, details('bad_request'));
  }
  if (status === 403) {
    if (reasons.some((r) => rateLimitReasons.has(r)) || errors.some((e) => e.domain === 'usageLimits')) {
      const wait = retryAfterMs(response.headers.get('retry-after'), now);
      return new AppError('provider_unavailable', `${providerName} usage limits were exceeded.`, {
        ...details('rate_limited'),
        retryAfter: wait === undefined ? undefined : Math.ceil(wait / 1000),
      });
    }
    if (reasons.includes('insufficientPermissions')) {
      return new AppError(
        'reconnect_required',
        'Calendar access was withdrawn; connect again.',
        details('scope'),
      );
    }
    // The calendar or event is no longer shared with the account: to the caller, it is gone.
    return new AppError('not_found', `${providerName} denied access.`, details('forbidden'));
  }
  if (status === 404 || status === 410) {
    return new AppError(
      'not_found',
      `${providerName} has no such item.`,
      details(status === 410 ? 'gone' : 'missing'),
    );
  }
  if (status === 409 || status === 412) {
    return new AppError('conflict', `${providerName} reports a conflicting change.`, details('conflict'));
  }
  return new AppError(
    'provider_unavailable',
    `${providerName} answered HTTP ${status}.`,
    details('server_error'),
  );
}

/**
 * A write Google refused, as the port names it: 409 on insert (the id is taken, even by a
 * deleted event) → conflict/exists; 412 (the etag changed) → conflict/version; a 403 that is
 * no rate limit → calendar_read_only. Everything else as for reads.
 */
export async function googleWriteFailure(response: Response, now: Temporal.Instant): Promise<AppError> {
  const failure = await googleFailure(response, now);
  const details = failure.details ?? {};
  if (response.status === 409) {
    return new AppError('conflict', `${providerName} already has an event with this id.`, {
      details: { ...details, reason: 'exists' },
    });
  }
  if (response.status === 412) {
    return new AppError('conflict', 'The event was changed meanwhile.', {
      details: { ...details, reason: 'version' },
    });
  }
  if (details.reason === 'forbidden') {
    return new AppError(
      'calendar_read_only',
      `${providerName} does not let this account change the calendar.`,
      {
        details: { ...details, reason: 'read_only' },
      },
    );
  }
  return failure;
}

const hasStatus = (error: unknown, statuses: number[]): boolean =>
  error instanceof AppError && statuses.includes(error.details?.status as number);

/** 410: Google forgot the position (sync or page token), or the resource was deleted. */
export const isGone = (error: unknown): boolean => hasStatus(error, [410]);
export const isMissing = (error: unknown): boolean => hasStatus(error, [404, 410]);
