/**
 * Typed application errors. Every failure a caller can see has a stable `code` and an HTTP
 * `status`; each surface (REST, pages, MCP, CLI) maps them to its wire format in one place.
 */

export const errorCatalogue = {
  invalid_request: 400,
  invalid_time_zone: 400,
  window_invalid: 400,
  window_too_long: 400,
  too_many_calendars: 400,
  time_zone_required: 400,
  invalid_credentials: 401,
  invalid_token: 401,
  unauthenticated: 401,
  insufficient_scope: 403,
  calendar_not_permitted: 403,
  forbidden: 403,
  // A write refused for the event's editBlockedReason: the code is the reason.
  calendar_read_only: 403,
  access_denied: 403,
  recurring_event: 400,
  not_organizer: 403,
  guests_or_scheduling: 403,
  conference: 403,
  managed_copy: 403,
  version_unavailable: 409,
  unknown: 403,
  csrf_invalid: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  already_exists: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  provider_unavailable: 502,
  reconnect_required: 502,
  write_outcome_unknown: 502,
  not_ready: 503,
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

export interface AppErrorOptions {
  /** Extra, non-secret members for the wire body (e.g. `field`, `retryAfter`). */
  details?: Record<string, unknown>;
  cause?: unknown;
  /** Seconds; surfaces turn it into a `Retry-After` header. */
  retryAfter?: number;
  /** A `WWW-Authenticate` challenge (RFC 6750) for 401 and 403 answers to bearer requests. */
  challenge?: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly retryAfter: number | undefined;
  readonly challenge: string | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = errorCatalogue[code];
    this.details = options.details;
    this.retryAfter = options.retryAfter;
    this.challenge = options.challenge;
  }
}

export const isAppError = (value: unknown): value is AppError => value instanceof AppError;

/** A bad input value, naming the field so clients and forms can point at it. */
export const invalidField = (field: string, message: string): AppError =>
  new AppError('invalid_request', message, { details: { field } });
