/**
 * Typed application errors. Every failure a caller can see has a stable `code` and an HTTP
 * `status`; each surface (REST, pages, MCP, CLI) maps them to its wire format in one place.
 */

/** Each code's status and default message (used where a call names no more specific one). */
export const errorCatalogue = {
  invalid_request: { status: 400, message: 'This request is not valid.' },
  invalid_time_zone: {
    status: 400,
    message: 'The time zone must be an IANA time zone such as Europe/Berlin.',
  },
  window_invalid: {
    status: 400,
    message: 'The window needs a start and an end with Z or an offset, the end later than the start.',
  },
  window_too_long: {
    status: 400,
    message: 'The window is longer than one request may read; split it into consecutive windows.',
  },
  too_many_calendars: {
    status: 400,
    message: 'Too many calendars for one request; split them over several requests.',
  },
  time_zone_required: {
    status: 400,
    message: "This calendar has no time zone of its own: give the user's IANA time zone (none is guessed).",
  },
  unknown_room: {
    status: 400,
    message: 'This address is not a room of the workspace: rooms come from list_rooms.',
  },
  invalid_credentials: { status: 401, message: 'The e-mail address or password is not right.' },
  invalid_token: { status: 401, message: 'The access token is not valid for this resource.' },
  unauthenticated: { status: 401, message: 'Send an access token for this resource as a Bearer token.' },
  insufficient_scope: { status: 403, message: 'The grant does not hold the scope this needs.' },
  calendar_not_permitted: {
    status: 403,
    message: 'This calendar id is unknown to the grant: ids come from list_calendars (GET /v1/calendars).',
  },
  forbidden: { status: 403, message: 'This is not allowed here.' },
  not_confirmed: { status: 403, message: 'The user did not confirm this change: nothing was changed.' },
  // A write refused for the event's editBlockedReason: the code is the reason.
  calendar_read_only: { status: 403, message: 'This calendar is read-only for the user.' },
  access_denied: { status: 403, message: 'This assistant may not change this event.' },
  recurring_event: { status: 400, message: 'This event repeats.' },
  not_organizer: {
    status: 403,
    message: 'Someone else organizes this event; only they can change it (the user can respond to it).',
  },
  guests_or_scheduling: {
    status: 403,
    message:
      'This event has guests, and the calendar does not name the user as its organizer: the user should change it in their calendar.',
  },
  conference: {
    status: 403,
    message:
      'This event carries an online meeting that a change could break; the user should change it themselves.',
  },
  managed_copy: {
    status: 403,
    message: 'This event is a copy managed elsewhere (a subscription, a birthday, a private copy).',
  },
  version_unavailable: {
    status: 409,
    message: 'The calendar gives no version of this event, so it cannot be changed safely.',
  },
  unknown: { status: 403, message: 'The calendar does not say whether this event may be changed.' },
  csrf_invalid: {
    status: 403,
    message: 'This form has expired or did not come from this site. Reload the page and try again.',
  },
  not_found: { status: 404, message: 'There is nothing at this address.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed here.' },
  conflict: { status: 409, message: 'This changed since it was read; read it again before changing it.' },
  already_exists: { status: 409, message: 'This exists already.' },
  series_has_exceptions: {
    status: 409,
    message:
      'Occurrences of this series were changed or cancelled on their own; moving the series or changing its rule would lose or strand them, so nothing was changed.',
  },
  unsupported_by_provider: {
    status: 422,
    message: "The calendar's provider cannot hold this; nothing was written.",
  },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'This content type is not accepted here.' },
  rate_limited: { status: 429, message: 'Too many requests. Slow down and retry later.' },
  internal_error: { status: 500, message: 'Something went wrong on our side. Try again later.' },
  provider_unavailable: {
    status: 502,
    message: 'The calendar provider did not answer as expected. Try again later.',
  },
  reconnect_required: { status: 502, message: 'This account must be reconnected by its owner.' },
  write_outcome_unknown: {
    status: 502,
    message:
      'The calendar did not confirm the change, and whether it was made is unknown. Read the event before trying again; never repeat the change blindly.',
  },
  service_unavailable: {
    status: 503,
    message: 'The service cannot answer for a moment: its database is not reachable. Retry later.',
  },
  storage_full: {
    status: 503,
    message: 'The service cannot save anything now: its storage is full. Try again later.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/**
 * The second level of a code: `details.reason` names which case of it an error is. Clients read
 * it and so does the services' own control flow (`writes/settle.ts`: no blind retry of a write),
 * so it is one closed list: a reason not declared here fails typecheck.
 */
export const reasonCatalogue = {
  timeout: 'The provider, or a sync, did not finish within its deadline.',
  network: 'The provider could not be reached (name lookup or connection failed).',
  cut_off: 'The answer broke off before its end.',
  too_large: 'The answer, or the sync, is larger than this service reads.',
  rate_limited: "The provider's rate or usage limit was reached: a definite refusal, nothing was changed.",
  server_error: 'The provider answered with a server error.',
  bad_request: 'The provider refused the request as not valid.',
  bad_response: 'The provider answered success with something its API does not describe.',
  unreadable: 'The provider sent an answer or an event this service cannot read.',
  unexpected_answer: 'The server answered with a status its protocol does not lead one to expect.',
  other_origin: 'The server pointed to another origin, where the credentials are never sent.',
  private_address: 'The address is private or local, which this service does not contact.',
  not_calendar_data: 'The feed is not iCalendar data.',
  too_many_redirects: 'The feed redirected too many times.',
  missing: 'The provider has no such item.',
  gone: 'The provider deleted the item, or forgot a sync position.',
  occurrence: 'The series has no occurrence at that time.',
  forbidden: 'The provider denied the account access to the item.',
  read_only: 'The provider does not let the account change the calendar.',
  conflict: 'The provider reports a conflicting change.',
  sync_state_lost: 'The provider lost its place in the listing.',
  lease_lost: "Another instance took over the calendar's sync.",
  scope: "The account's grant at the provider no longer holds calendar access.",
  grant_refused: 'The provider refused the account grant (`error` names its code).',
  no_refresh_token: 'The provider granted no offline access.',
  scope_not_granted: 'The person did not grant calendar access at the provider.',
  token_rejected: 'The provider rejected an access token it had just issued.',
  oauth_error: "The provider's sign-in failed otherwise (`error` names its code).",
  version: 'The event changed since it was read.',
  exists: 'The provider already has an event with this id.',
  changed_since_read:
    'Fields changed since the client read them (`fields` names them, `current` shows them).',
  idempotency_key_reused: 'The idempotency key was used for a different event.',
  unexpected: 'The write failed in a way the provider did not describe.',
  day_not_in_every_month: 'The repeating event starts on a day some months lack.',
  series_date_change: 'Moving a series to another day needs its rule restated.',
} as const satisfies Record<string, string>;

export type ErrorReason = keyof typeof reasonCatalogue;

/** What an error carries beyond its code: `reason` from the catalogue, other members free. */
export type ErrorDetails = { reason?: ErrorReason } & Record<string, unknown>;

/** The error's reason, when it is an AppError that gives one. */
export const reasonOf = (error: unknown): ErrorReason | undefined =>
  error instanceof AppError ? error.details?.reason : undefined;

export interface AppErrorOptions {
  /** Extra, non-secret members for the wire body (e.g. `field`, `retryAfter`). */
  details?: ErrorDetails;
  cause?: unknown;
  /** Seconds; surfaces turn it into a `Retry-After` header. */
  retryAfter?: number;
  /** A `WWW-Authenticate` challenge (RFC 6750) for 401 and 403 answers to bearer requests. */
  challenge?: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails | undefined;
  readonly retryAfter: number | undefined;
  readonly challenge: string | undefined;

  /** Without a `message`, the catalogue's default for the code. */
  constructor(code: ErrorCode, message?: string, options: AppErrorOptions = {}) {
    super(
      message ?? errorCatalogue[code].message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'AppError';
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.details = options.details;
    this.retryAfter = options.retryAfter;
    this.challenge = options.challenge;
  }
}

export const isAppError = (value: unknown): value is AppError => value instanceof AppError;

/** A bad input value, naming the field so clients and forms can point at it. */
export const invalidField = (field: string, message: string): AppError =>
  new AppError('invalid_request', message, { details: { field } });
