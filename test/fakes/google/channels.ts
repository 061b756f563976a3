/**
 * The fake's push notifications (guides/push, events.watch, channels.stop): a watch request
 * opens a channel on one calendar's events; the fake then POSTs an empty notification to the
 * channel's address — `sync` at once, `exists` after every change to the calendar's events (one
 * per request that changed it), `not_exists` when the calendar itself goes — with Google's
 * X-Goog-* headers and message numbers that increase (1 for `sync`). A channel stops on
 * channels.stop, at its expiration on the fake's clock, or by `expire`. Deliveries are not
 * retried; each one's outcome is kept in `deliveries`.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../src/lib/clock.ts';
import type { ChangeState } from './calendar.ts';
import { type FakeResponse, googleError, json } from './http.ts';

type State = 'sync' | ChangeState;

interface Channel {
  id: string;
  calendarId: string;
  resourceId: string;
  resourceUri: string;
  address: string;
  token?: string;
  /** Epoch milliseconds. */
  expiration: number;
  messageNumber: number;
  /** Notifications go out one after another, in order. */
  sending: Promise<void>;
}

export interface Delivery {
  channelId: string;
  state: State;
  messageNumber: number;
  /** The receiver's answer; 0 when it could not be reached. */
  status: number;
}

/** Google's default when the watch request names no expiration: one week. */
const defaultTtlMs = 7 * 24 * 3600 * 1000;
const deliveryTimeoutMs = 5000;
/**
 * Google requires an https address. The fake also takes http on loopback, where tests run
 * their receivers.
 */
const acceptableAddress = (address: URL) =>
  address.protocol === 'https:' ||
  (address.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(address.hostname));

export class FakeChannels {
  readonly deliveries: Delivery[] = [];
  readonly #channels = new Map<string, Channel>();
  /** One resource id per watched calendar, stable across its channels as Google's is. */
  readonly #resourceIds = new Map<string, string>();
  readonly #clock: Clock;
  readonly #apiUrl: string;
  readonly #closing: AbortSignal;
  readonly #pending = new Set<string>();
  readonly #sending = new Set<Promise<void>>();

  constructor(options: { clock: Clock; apiUrl: string; closing: AbortSignal }) {
    this.#clock = options.clock;
    this.#apiUrl = options.apiUrl;
    this.#closing = options.closing;
  }

  /** POST /calendars/{calendarId}/events/watch, for a calendar the caller can read. */
  watch(calendarId: string, body: string): FakeResponse {
    let request: { id?: unknown; type?: unknown; address?: unknown; token?: unknown; expiration?: unknown };
    try {
      request = JSON.parse(body);
    } catch {
      return googleError(400, { reason: 'parseError', message: 'Parse Error' });
    }
    const { id, type, address, token, expiration } = request ?? {};
    if (typeof id !== 'string' || id === '')
      return googleError(400, { reason: 'required', message: 'Required' });
    if (type !== 'web_hook' && type !== 'webhook')
      return googleError(400, { reason: 'invalid', message: `Unsupported channel type: ${String(type)}` });
    const target = typeof address === 'string' && URL.canParse(address) ? new URL(address) : undefined;
    if (target === undefined || !acceptableAddress(target)) {
      return googleError(400, {
        reason: 'push.webhookUrlNotHttps',
        domain: 'global',
        message: `WebHook callback must be HTTPS: ${String(address)}`,
      });
    }
    if (this.#channels.has(id))
      return googleError(400, { reason: 'channelIdNotUnique', message: 'Channel id not unique' });
    const now = this.#clock.now().epochMilliseconds;
    const expires = expiration === undefined ? now + defaultTtlMs : Number(expiration);
    if (!Number.isInteger(expires) || expires <= now)
      return googleError(400, { reason: 'invalid', message: 'Invalid expiration value.' });
    let resourceId = this.#resourceIds.get(calendarId);
    if (resourceId === undefined) {
      resourceId = randomBytes(20).toString('base64url');
      this.#resourceIds.set(calendarId, resourceId);
    }
    const channel: Channel = {
      id,
      calendarId,
      resourceId,
      resourceUri: `${this.#apiUrl}/calendars/${encodeURIComponent(calendarId)}/events?alt=json`,
      address: target.href,
      ...(typeof token === 'string' ? { token } : {}),
      expiration: expires,
      messageNumber: 0,
      sending: Promise.resolve(),
    };
    this.#channels.set(id, channel);
    this.#send(channel, 'sync');
    return json({
      kind: 'api#channel',
      id,
      resourceId,
      resourceUri: channel.resourceUri,
      ...(channel.token === undefined ? {} : { token: channel.token }),
      // int64 members travel as strings in Google's JSON.
      expiration: String(channel.expiration),
    });
  }

  /** POST /channels/stop: 204, or 404 for a channel (id and resourceId) the fake does not know. */
  stop(body: string): FakeResponse {
    let request: { id?: unknown; resourceId?: unknown };
    try {
      request = JSON.parse(body);
    } catch {
      return googleError(400, { reason: 'parseError', message: 'Parse Error' });
    }
    const channel = this.#live(String(request?.id));
    if (channel === undefined || channel.resourceId !== request?.resourceId)
      return googleError(404, { message: `Channel '${String(request?.id)}' not found for project` });
    this.#channels.delete(channel.id);
    return { status: 204 };
  }

  /** The calendar's events changed: its open channels hear of it once per request that changed them. */
  changed(calendarId: string, state: ChangeState): void {
    const key = `${calendarId} ${state}`;
    if (this.#pending.has(key)) return;
    this.#pending.add(key);
    queueMicrotask(() => {
      this.#pending.delete(key);
      for (const channel of this.#channels.values()) {
        if (channel.calendarId !== calendarId || this.#live(channel.id) === undefined) continue;
        this.#send(channel, state);
        if (state === 'not_exists') this.#channels.delete(channel.id);
      }
    });
  }

  /** Ends one channel, or every channel, as if its expiration had passed. */
  expire(channelId?: string): void {
    if (channelId === undefined) this.#channels.clear();
    else this.#channels.delete(channelId);
  }

  /** The channels still open (expired ones dropped), for tests. */
  open(): Array<{ id: string; calendarId: string; resourceId: string; expiration: number }> {
    return [...this.#channels.keys()]
      .map((id) => this.#live(id))
      .filter((channel) => channel !== undefined)
      .map(({ id, calendarId, resourceId, expiration }) => ({ id, calendarId, resourceId, expiration }));
  }

  /** Resolves once every notification queued so far is delivered (or failed). */
  async settled(): Promise<void> {
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    while (this.#sending.size > 0) await Promise.all(this.#sending);
  }

  /** The channel unless unknown or past its expiration on the fake's clock (then dropped). */
  #live(id: string): Channel | undefined {
    const channel = this.#channels.get(id);
    if (channel === undefined || channel.expiration > this.#clock.now().epochMilliseconds) return channel;
    this.#channels.delete(id);
    return undefined;
  }

  #send(channel: Channel, state: State): void {
    // Google's numbers increase without being consecutive; 1 is the sync message.
    channel.messageNumber = state === 'sync' ? 1 : channel.messageNumber + 1 + (channel.messageNumber % 3);
    const messageNumber = channel.messageNumber;
    const headers: Record<string, string> = {
      'x-goog-channel-id': channel.id,
      'x-goog-channel-expiration': new Date(channel.expiration).toUTCString(),
      'x-goog-message-number': String(messageNumber),
      'x-goog-resource-id': channel.resourceId,
      'x-goog-resource-state': state,
      'x-goog-resource-uri': channel.resourceUri,
      ...(channel.token === undefined ? {} : { 'x-goog-channel-token': channel.token }),
    };
    const sending = channel.sending.then(async () => {
      let status = 0;
      try {
        const signal = AbortSignal.any([this.#closing, AbortSignal.timeout(deliveryTimeoutMs)]);
        const response = await fetch(channel.address, { method: 'POST', headers, signal });
        await response.body?.cancel();
        status = response.status;
      } catch {
        // Unreachable receivers lose the message, as with Google (which retries a while).
      }
      this.deliveries.push({ channelId: channel.id, state, messageNumber, status });
    });
    channel.sending = sending;
    this.#sending.add(sending);
    void sending.finally(() => this.#sending.delete(sending));
  }
}
