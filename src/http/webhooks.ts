/**
 * Where providers deliver change notifications: POST /hooks/google and /hooks/microsoft. No
 * session, no bearer and no grant budget: a notification counts only when its channel is ours
 * and it carries that channel's token (sync/pushNotices.ts); otherwise Google's is answered 404
 * with an empty body, whichever of the two was wrong. Bodies are bounded and read as bytes
 * whatever their type; neither bodies nor tokens are logged, and nothing in a notification
 * names anything the service would fetch. Graph's validation token is echoed only while an
 * instance is creating a subscription, so the service's origin serves no one else's text.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasControlCharacters } from '../lib/text.ts';
import type { PushUpkeep } from '../sync/push.ts';
import type { GraphNotification, PushNotices } from '../sync/pushNotices.ts';

/** What the webhooks are given: the notices, and whether a channel is being asked for now. */
export interface PushWebhooks {
  notices: PushNotices;
  upkeep: Pick<PushUpkeep, 'watching'>;
}

/** Graph sends notifications in batches; Google sends no body at all. */
const bodyLimit = 256 * 1024;
/** Notifications of one Graph delivery looked at. */
const maxNotifications = 100;
/** Longer than any channel id, token, clientState or subscription id the providers use. */
const maxIdLength = 256;
/** Graph's validation tokens are about a hundred characters. */
const maxValidationToken = 512;

const shortText = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && value.length <= maxIdLength;

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return shortText(value) ? value : undefined;
}

/** The notifications of a Graph delivery (`{ value: [...] }`); undefined when the body is not one. */
function graphNotifications(body: unknown): GraphNotification[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.isBuffer(body) ? body.toString('utf8') : '');
  } catch {
    return undefined;
  }
  const value = (parsed as { value?: unknown } | null)?.value;
  if (!Array.isArray(value)) return undefined;
  return value.slice(0, maxNotifications).flatMap((item: Record<string, unknown> | null) => {
    const { subscriptionId, clientState, lifecycleEvent } = item ?? {};
    if (!shortText(subscriptionId) || !shortText(clientState)) return [];
    return [{ subscriptionId, clientState, ...(shortText(lifecycleEvent) ? { lifecycleEvent } : {}) }];
  });
}

const empty = (reply: FastifyReply, status: number) => reply.code(status).send();

export async function registerWebhooks(
  app: FastifyInstance,
  { notices, upkeep }: PushWebhooks,
): Promise<void> {
  await app.register(async (hooks) => {
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) =>
      done(null, body),
    );

    hooks.post('/hooks/google', { bodyLimit }, async (request, reply) => {
      const state = header(request, 'x-goog-resource-state');
      // The first message of every channel, sent before its watch call has even returned:
      // nothing changed, and the answer is the same for any channel.
      if (state === 'sync') return empty(reply, 200);
      const channelId = header(request, 'x-goog-channel-id');
      const token = header(request, 'x-goog-channel-token');
      const known =
        state !== undefined &&
        channelId !== undefined &&
        token !== undefined &&
        (await notices.google({ channelId, token, state }));
      return empty(reply, known ? 200 : 404);
    });

    hooks.post('/hooks/microsoft', { bodyLimit }, async (request, reply) => {
      const { validationToken } = request.query as { validationToken?: unknown };
      if (validationToken !== undefined) {
        // Graph checks the address answers while it creates a subscription: the token echoed
        // then, as plain text; at any other time it is someone else's text, and not ours to serve.
        if (!(await upkeep.watching('microsoft'))) return empty(reply, 404);
        const fine =
          typeof validationToken === 'string' &&
          validationToken.length <= maxValidationToken &&
          !hasControlCharacters(validationToken);
        if (!fine) return empty(reply, 400);
        return reply
          .code(200)
          .header('x-content-type-options', 'nosniff')
          .type('text/plain; charset=utf-8')
          .send(validationToken);
      }
      const notifications = graphNotifications(request.body);
      if (notifications === undefined) return empty(reply, 400);
      await notices.microsoft(notifications);
      return empty(reply, 202);
    });
  });
}
