/**
 * Every HTTP call to a calendar provider goes through here: a timeout on each attempt,
 * retries with backoff for idempotent requests on 429/5xx and network failures (honouring
 * Retry-After), and a per-account cap on concurrent calls (Graph allows 4 per mailbox).
 * Non-retryable answers are returned to the adapter, which maps them to typed errors.
 */
import { AppError } from '../errors.ts';
import type { ProviderCallOutcome } from '../lib/metrics.ts';

export interface ProviderHttpOptions {
  fetch?: typeof fetch;
  /** Per attempt, milliseconds. */
  timeoutMs?: number;
  /**
   * The signal that ends one attempt as timed out (aborted with a `TimeoutError`); by default
   * `timeoutMs` after it starts. Tests pass one they abort at the moment they choose.
   */
  deadline?: (request: ProviderRequest) => AbortSignal;
  /** Attempts for idempotent requests (1 = no retry). */
  maxAttempts?: number;
  /** First backoff delay; doubles per attempt, with jitter. */
  baseDelayMs?: number;
  /** Longest wait the client accepts from Retry-After before giving up with provider_unavailable. */
  maxRetryAfterMs?: number;
  /** Concurrent requests per account. */
  perAccountConcurrency?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Told how each attempt ended (the metrics). */
  observe?: (outcome: ProviderCallOutcome) => void;
}

export interface ProviderRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Safe to repeat (GET, PROPFIND, REPORT): retried on 429/5xx and network errors. */
  idempotent?: boolean;
  /** Key for the per-account concurrency cap. */
  accountKey: string;
  /** Provider name for error messages ("Google Calendar", "CalDAV server"). */
  provider: string;
}

const defaults = {
  timeoutMs: 15_000,
  maxAttempts: 3,
  baseDelayMs: 200,
  maxRetryAfterMs: 30_000,
  perAccountConcurrency: 4,
};

class Semaphore {
  #active = 0;
  readonly #waiting: Array<() => void> = [];
  readonly #limit: number;
  constructor(limit: number) {
    this.#limit = limit;
  }
  get idle(): boolean {
    return this.#active === 0 && this.#waiting.length === 0;
  }
  async acquire(): Promise<void> {
    if (this.#active < this.#limit) {
      this.#active++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#active--;
  }
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only HTTP date form senders may use. */
export function parseHttpDate(value: string): Temporal.Instant | undefined {
  const m = /^[A-Z][a-z]{2}, (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(value.trim());
  const month = m ? months.indexOf(m[2]!) + 1 : 0;
  if (!m || month === 0) return undefined;
  try {
    const [day, year, hour, minute, second] = [m[1], m[3], m[4], m[5], m[6]].map(Number) as number[];
    return Temporal.PlainDateTime.from(
      { year: year!, month, day: day!, hour: hour!, minute: minute!, second: second! },
      { overflow: 'reject' },
    )
      .toZonedDateTime('UTC')
      .toInstant();
  } catch {
    return undefined;
  }
}

/** Retry-After in milliseconds, from seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Temporal.Instant): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = parseHttpDate(header);
  return at === undefined ? undefined : Math.max(0, at.epochMilliseconds - now.epochMilliseconds);
}

const retryableStatus = (status: number) =>
  status === 429 || status === 502 || status === 503 || status === 504 || status === 500;

export class ProviderHttp {
  readonly #options: Required<ProviderHttpOptions>;
  readonly #slots = new Map<string, Semaphore>();

  constructor(options: ProviderHttpOptions = {}) {
    this.#options = {
      ...defaults,
      fetch: globalThis.fetch,
      deadline: () => AbortSignal.timeout(options.timeoutMs ?? defaults.timeoutMs),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      observe: () => {},
      ...options,
    };
  }

  async request(request: ProviderRequest): Promise<Response> {
    let slot = this.#slots.get(request.accountKey);
    if (slot === undefined) {
      slot = new Semaphore(this.#options.perAccountConcurrency);
      this.#slots.set(request.accountKey, slot);
    }
    await slot.acquire();
    try {
      return await this.#withRetries(request);
    } finally {
      slot.release();
      if (slot.idle) this.#slots.delete(request.accountKey);
    }
  }

  async #withRetries(request: ProviderRequest): Promise<Response> {
    const attempts = request.idempotent ? this.#options.maxAttempts : 1;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await this.#options.fetch(request.url, {
          method: request.method ?? 'GET',
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
          signal: this.#options.deadline(request),
        });
      } catch (error) {
        const timedOut = (error as Error).name === 'TimeoutError';
        this.#options.observe(timedOut ? 'timeout' : 'network');
        if (attempt < attempts) {
          await this.#options.sleep(this.#backoff(attempt));
          continue;
        }
        throw new AppError(
          'provider_unavailable',
          `${request.provider} ${timedOut ? 'did not answer in time' : 'could not be reached'}.`,
          { cause: error, details: { reason: timedOut ? 'timeout' : 'network' } },
        );
      }
      this.#options.observe(response.status < 400 ? 'ok' : response.status < 500 ? '4xx' : '5xx');
      if (!retryableStatus(response.status)) return response;
      const wait = retryAfterMs(response.headers.get('retry-after'), Temporal.Now.instant());
      await response.body?.cancel();
      if (attempt >= attempts || (wait !== undefined && wait > this.#options.maxRetryAfterMs)) {
        throw new AppError(
          'provider_unavailable',
          `${request.provider} is unavailable (HTTP ${response.status}).`,
          {
            retryAfter: wait === undefined ? undefined : Math.ceil(wait / 1000),
            details: {
              reason: response.status === 429 ? 'rate_limited' : 'server_error',
              status: response.status,
            },
          },
        );
      }
      await this.#options.sleep(wait ?? this.#backoff(attempt));
    }
  }

  #backoff(attempt: number): number {
    const base = this.#options.baseDelayMs * 2 ** (attempt - 1);
    return base / 2 + Math.random() * (base / 2);
  }
}
