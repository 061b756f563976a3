/**
 * Change notifications for one calendar through Graph webhooks ("Receive change notifications
 * through webhooks"): a subscription on the calendar's events, whose notifications and
 * lifecycle notifications go to the address given and carry the token as `clientState`.
 * Graph checks the address itself before answering (the validation handshake).
 */
import { AppError, isAppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { PushChannels } from '../port.ts';
import type { GraphClient } from './client.ts';
import { providerName } from './config.ts';
import { calendarPath, instantOrUndefined } from './eventLookup.ts';
import type { GraphSubscription } from './wire.ts';

/**
 * The longest a subscription to Outlook events may live ("subscription resource type": 10,080
 * minutes), less a margin for the clocks and the request on its way.
 */
const longest = Temporal.Duration.from({ minutes: 10_080 - 15 });

export function createMicrosoftPush(client: GraphClient, clock: Clock): PushChannels<'microsoft'> {
  return {
    async watch(account, calendar, request) {
      const latest = clock.now().add(longest);
      const wanted = Temporal.Instant.fromEpochMilliseconds(request.expiresAt);
      const expiry = Temporal.Instant.compare(wanted, latest) < 0 ? wanted : latest;
      const subscription = await client.write<GraphSubscription>(account, '/subscriptions', {
        method: 'POST',
        body: {
          changeType: 'created,updated,deleted',
          notificationUrl: request.address,
          lifecycleNotificationUrl: request.address,
          resource: `${calendarPath(calendar)}/events`,
          expirationDateTime: expiry.toString(),
          clientState: request.token,
        },
      });
      const granted = subscription?.expirationDateTime;
      const expiresAt = typeof granted === 'string' ? instantOrUndefined(granted) : undefined;
      if (typeof subscription?.id !== 'string' || subscription.id === '' || expiresAt === undefined)
        throw new AppError('provider_unavailable', `${providerName} sent an unreadable subscription.`, {
          details: { reason: 'unreadable' },
        });
      return { channelId: subscription.id, expiresAt: expiresAt.epochMilliseconds };
    },

    async stop(account, channel) {
      try {
        await client.write(account, `/subscriptions/${encodeURIComponent(channel.channelId)}`, {
          method: 'DELETE',
        });
      } catch (error) {
        // Gone already (expired, or removed by Graph): what stop asks for.
        if (!isAppError(error) || error.code !== 'not_found') throw error;
      }
    },
  };
}
