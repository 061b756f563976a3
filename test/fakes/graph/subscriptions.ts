/**
 * Change notifications through webhooks, as Graph v1.0 documents them ("Receive change
 * notifications through webhooks", "subscription resource type", "Reduce missing subscriptions
 * and change notifications"): `POST /subscriptions` validates the notification (and lifecycle)
 * endpoint first — a POST with `?validationToken=…` that must be echoed as text/plain with 200
 * within 10 s, else 400 —; each change of an event then POSTs a changeNotificationCollection;
 * `PATCH` renews (events: at most 10,080 minutes ahead), `DELETE` removes; lifecycle
 * notifications go to `lifecycleNotificationUrl`. Graph requires https endpoints; the fake also
 * accepts http on loopback so tests can receive without certificates.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { graphError, json, type Reply } from './http.ts';

export type LifecycleEvent = 'reauthorizationRequired' | 'subscriptionRemoved' | 'missed';
export type ChangeType = 'created' | 'updated' | 'deleted';

export interface FakeSubscription {
  id: string;
  /** The mailbox whose token created it. */
  email: string;
  resource: string;
  /** Only this calendar's events; every calendar of the mailbox when absent (`me/events`). */
  calendarId?: string;
  changeTypes: ChangeType[];
  notificationUrl: string;
  lifecycleNotificationUrl?: string;
  clientState?: string;
  expirationDateTime: Temporal.Instant;
}

export interface SubscriptionRequest {
  method: string;
  /** Path segments after `subscriptions`. */
  below: string[];
  body: unknown;
  email: string;
  /** The mailbox's calendar ids (a subscribed calendar must be one). */
  calendarIds: string[];
  apiBaseUrl: string;
}

/** "subscription resource type", maximum length of subscription: Outlook event, under 7 days. */
const maxLifetimeMinutes = 10_080;
/** The tenant every notification names. */
export const fakeTenantId = 'f5b3c4e2-7a1d-4c8b-9e6f-0a1b2c3d4e5f';
const changeTypes = new Set<string>(['created', 'updated', 'deleted']);

const badRequest = (message: string) => graphError(400, 'InvalidRequest', message);
const missing = () => graphError(404, 'ResourceNotFound', 'The object was not found.');

export class SubscriptionHub {
  readonly subscriptions = new Map<string, FakeSubscription>();
  readonly #validationTimeoutMs: number;
  readonly #sending = new Set<Promise<void>>();

  constructor(validationTimeoutMs: number) {
    this.#validationTimeoutMs = validationTimeoutMs;
  }

  async answer(request: SubscriptionRequest): Promise<Reply> {
    const { method, below } = request;
    const [id, action, ...rest] = below;
    if (rest.length > 0) return graphError(400, 'BadRequest', 'Resource not found for the segment.');
    if (id === undefined) {
      if (method === 'GET')
        return json({ value: this.#of(request.email).map((s) => render(s, request.apiBaseUrl)) });
      if (method === 'POST') return this.#create(request);
      return graphError(405, 'Request_BadRequest', 'Method not allowed.');
    }
    const subscription = this.subscriptions.get(id);
    if (subscription === undefined || subscription.email !== request.email) return missing();
    if (action === 'reauthorize' && method === 'POST') return { status: 200 };
    if (action !== undefined) return graphError(400, 'BadRequest', 'Resource not found for the segment.');
    if (method === 'GET') return json(render(subscription, request.apiBaseUrl));
    if (method === 'DELETE') {
      this.subscriptions.delete(id);
      return { status: 204 };
    }
    if (method !== 'PATCH') return graphError(405, 'Request_BadRequest', 'Method not allowed.');
    const expiry = expirationOf(
      (request.body as { expirationDateTime?: unknown } | undefined)?.expirationDateTime,
    );
    if ('status' in expiry) return expiry;
    subscription.expirationDateTime = expiry;
    return json(render(subscription, request.apiBaseUrl));
  }

  /** Notifies every live subscription that covers the event's calendar and change type. */
  notify(email: string, calendarId: string, changeType: ChangeType, eventId: string, etag?: string): void {
    const now = Temporal.Now.instant();
    for (const subscription of this.#of(email)) {
      if (Temporal.Instant.compare(subscription.expirationDateTime, now) <= 0) continue;
      if (subscription.calendarId !== undefined && subscription.calendarId !== calendarId) continue;
      if (!subscription.changeTypes.includes(changeType)) continue;
      const path = `Users/${userId(email)}/Events/${eventId}`;
      this.#post(subscription.notificationUrl, {
        subscriptionId: subscription.id,
        subscriptionExpirationDateTime: subscription.expirationDateTime.toString(),
        changeType,
        resource: path,
        resourceData: {
          '@odata.type': '#Microsoft.Graph.Event',
          '@odata.id': path,
          ...(etag === undefined ? {} : { '@odata.etag': etag }),
          id: eventId,
        },
        clientState: subscription.clientState ?? null,
        tenantId: fakeTenantId,
      });
    }
  }

  /** Sends a lifecycle notification; `subscriptionRemoved` also removes the subscription. */
  lifecycle(id: string, lifecycleEvent: LifecycleEvent): void {
    const subscription = this.subscriptions.get(id);
    if (subscription === undefined) throw new Error(`No subscription ${id} in the fake.`);
    if (lifecycleEvent === 'subscriptionRemoved') this.subscriptions.delete(id);
    if (subscription.lifecycleNotificationUrl === undefined) return;
    this.#post(subscription.lifecycleNotificationUrl, {
      subscriptionId: id,
      subscriptionExpirationDateTime: subscription.expirationDateTime.toString(),
      tenantId: fakeTenantId,
      clientState: subscription.clientState ?? null,
      lifecycleEvent,
    });
  }

  /** Resolves once every notification sent so far was answered (or failed). */
  async settled(): Promise<void> {
    while (this.#sending.size > 0) await Promise.all(this.#sending);
  }

  #of(email: string): FakeSubscription[] {
    return [...this.subscriptions.values()].filter((subscription) => subscription.email === email);
  }

  async #create(request: SubscriptionRequest): Promise<Reply> {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const types = String(body.changeType ?? '').split(',');
    if (types.some((type) => !changeTypes.has(type)))
      return badRequest(`Invalid changeType '${String(body.changeType)}'.`);
    const resource = String(body.resource ?? '').replace(/^\//, '');
    const calendarMatch = /^me\/calendars\/([^/]+)\/events$/i.exec(resource);
    if (!/^me\/events$/i.test(resource) && calendarMatch === null)
      return badRequest(`Resource '${resource}' is not supported.`);
    const calendarId = calendarMatch === null ? undefined : decodeURIComponent(calendarMatch[1]!);
    if (calendarId !== undefined && !request.calendarIds.includes(calendarId)) return missing();
    const expiry = expirationOf(body.expirationDateTime);
    if ('status' in expiry) return expiry;
    if (typeof body.clientState === 'string' && body.clientState.length > 128)
      return badRequest('clientState must be at most 128 characters.');
    const urls = [body.notificationUrl, body.lifecycleNotificationUrl].filter((url) => url !== undefined);
    for (const url of urls) {
      const refused = endpointRefusal(url);
      if (refused) return refused;
      if (!(await this.#validates(String(url))))
        return graphError(
          400,
          'ValidationError',
          'Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.',
        );
    }
    const subscription: FakeSubscription = {
      id: randomUUID(),
      email: request.email,
      resource,
      ...(calendarId === undefined ? {} : { calendarId }),
      changeTypes: types as ChangeType[],
      notificationUrl: String(body.notificationUrl),
      ...(typeof body.lifecycleNotificationUrl === 'string'
        ? { lifecycleNotificationUrl: body.lifecycleNotificationUrl }
        : {}),
      ...(typeof body.clientState === 'string' ? { clientState: body.clientState } : {}),
      expirationDateTime: expiry,
    };
    this.subscriptions.set(subscription.id, subscription);
    return { ...json(render(subscription, request.apiBaseUrl)), status: 201 };
  }

  /** The validation handshake: a 200 text/plain echo of the token, within the timeout. */
  async #validates(url: string): Promise<boolean> {
    const token = `Validation: Testing client application reachability for subscription Request-Id: ${randomBytes(8).toString('hex')}`;
    const target = new URL(url);
    target.searchParams.set('validationToken', token);
    try {
      const response = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        signal: AbortSignal.timeout(this.#validationTimeoutMs),
      });
      const text = await response.text();
      return (
        response.status === 200 &&
        (response.headers.get('content-type') ?? '').startsWith('text/plain') &&
        text === token
      );
    } catch {
      return false;
    }
  }

  #post(url: string, notification: Record<string, unknown>): void {
    const sending = fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ value: [notification] }),
      signal: AbortSignal.timeout(this.#validationTimeoutMs),
    })
      .then((response) => response.body?.cancel())
      .catch(() => undefined)
      .finally(() => this.#sending.delete(sending));
    this.#sending.add(sending);
  }
}

const userId = (email: string) => `user-${email}`;

/** An expirationDateTime in the future and at most the events' maximum lifetime ahead. */
function expirationOf(value: unknown): Temporal.Instant | Reply {
  let expiry: Temporal.Instant;
  try {
    expiry = Temporal.Instant.from(String(value));
  } catch {
    return badRequest('expirationDateTime is required and must be a date-time with an offset.');
  }
  const now = Temporal.Now.instant();
  if (Temporal.Instant.compare(expiry, now) <= 0)
    return badRequest('Subscription expiration must be in the future.');
  if (Temporal.Instant.compare(expiry, now.add({ minutes: maxLifetimeMinutes })) > 0)
    return badRequest(`Subscription expiration can only be ${maxLifetimeMinutes} minutes in the future.`);
  return expiry;
}

/** Graph wants https; http is accepted on loopback only (the fake's tests receive there). */
function endpointRefusal(value: unknown): Reply | undefined {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return badRequest('The notification URL is not a valid URL.');
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) return undefined;
  return badRequest('The Notification URL must use https.');
}

function render(subscription: FakeSubscription, apiBaseUrl: string): Record<string, unknown> {
  return {
    '@odata.context': `${apiBaseUrl}/$metadata#subscriptions/$entity`,
    id: subscription.id,
    resource: subscription.resource,
    applicationId: 'fake-graph-client',
    changeType: subscription.changeTypes.join(','),
    clientState: subscription.clientState ?? null,
    notificationUrl: subscription.notificationUrl,
    lifecycleNotificationUrl: subscription.lifecycleNotificationUrl ?? null,
    expirationDateTime: subscription.expirationDateTime.toString(),
    creatorId: userId(subscription.email),
    includeResourceData: false,
    latestSupportedTlsVersion: 'v1_2',
    encryptionCertificate: null,
    encryptionCertificateId: null,
    notificationQueryOptions: null,
    notificationUrlAppId: null,
  };
}
