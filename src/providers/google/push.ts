/**
 * Push channels (guides/push): events.watch opens one on a calendar's events, channels.stop
 * closes it. Google then POSTs an empty notification carrying the channel's token to the
 * address; what changed is for the next sync to find. Both calls are writes, sent once.
 */
import type { Clock } from '../../lib/clock.ts';
import type { PushChannels } from '../port.ts';
import { calendarPath, readGoogleJson, unreadable } from './client.ts';
import { googleFailure } from './errors.ts';
import type { GoogleAccount, GoogleSession } from './session.ts';
import type { GoogleChannel } from './wire.ts';

/** A channel resource is a few hundred bytes. */
const channelAnswerBytes = 64 * 1024;

export function createGooglePush(
  sessionFor: (account: GoogleAccount) => GoogleSession,
  apiBaseUrl: string,
  clock: Clock,
): PushChannels<'google'> {
  return {
    async watch(account, calendar, request) {
      const response = await sessionFor(account).write({
        url: `${apiBaseUrl}${calendarPath(calendar.providerCalendarId)}/events/watch`,
        method: 'POST',
        body: {
          id: request.channelId,
          type: 'web_hook',
          address: request.address,
          token: request.token,
          expiration: String(request.expiresAt),
        },
      });
      if (!response.ok) throw await googleFailure(response, clock.now());
      const channel = await readGoogleJson<GoogleChannel | null>(response, channelAnswerBytes);
      if (channel?.id !== request.channelId || typeof channel.resourceId !== 'string') {
        throw unreadable(response.status);
      }
      const granted = Number(channel.expiration);
      return {
        channelId: request.channelId,
        resourceId: channel.resourceId,
        // Google may end a channel sooner than asked (never later); unstated, it is what was asked.
        expiresAt:
          Number.isSafeInteger(granted) && granted > 0
            ? Math.min(granted, request.expiresAt)
            : request.expiresAt,
      };
    },

    async stop(account, channel) {
      const response = await sessionFor(account).write({
        url: `${apiBaseUrl}/channels/stop`,
        method: 'POST',
        body: { id: channel.channelId, resourceId: channel.resourceId },
      });
      // 404: the channel expired or was stopped already, which is what was wanted.
      if (!response.ok && response.status !== 404) throw await googleFailure(response, clock.now());
      await response.body?.cancel();
    },
  };
}
