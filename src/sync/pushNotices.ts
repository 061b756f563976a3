/**
 * What a change notification does. One whose channel is known and whose token matches makes its
 * calendar due and starts its sync, not waited for (a burst of them costs two syncs: see
 * syncService.ts#afterNotice); Graph's lifecycle notifications renew the
 * channel (reauthorizationRequired), forget one Graph removed (subscriptionRemoved: the calendar
 * is made due and the round after its sync watches it again) or make the calendar due (missed).
 * An unknown channel and a wrong token are the same to the caller.
 */

import type { Kysely } from 'kysely';
import type { ProviderKind } from '../domain/providerFacts.ts';
import { constantTimeEqual, tokenHash } from '../lib/secrets.ts';
import { deleteChannel, findChannel, type StoredChannel } from '../store/pushChannels.ts';
import type { Database } from '../store/schema.ts';
import type { PushUpkeep } from './push.ts';
import type { SyncService } from './syncService.ts';

export interface GraphNotification {
  subscriptionId: string;
  clientState: string;
  lifecycleEvent?: string;
}

export interface PushNotices {
  /** Google (a resource state other than `sync`): false when the channel or its token is not ours. */
  google(notice: { channelId: string; token: string; state: string }): Promise<boolean>;
  /** Graph: each notification of one delivery, checked on its own. */
  microsoft(notifications: readonly GraphNotification[]): Promise<void>;
}

export interface PushNoticesDeps {
  db: Kysely<Database>;
  upkeep: PushUpkeep;
  sync: Pick<SyncService, 'markDue' | 'afterNotice'>;
  /** Told of background work that failed (the calendar and the error; never the notification). */
  onError: (calendarId: string, error: unknown) => void;
}

export function createPushNotices(deps: PushNoticesDeps): PushNotices {
  async function ours(provider: ProviderKind, channelId: string, token: string) {
    const channel = await findChannel(deps.db, provider, channelId);
    // Two sha256 hashes: of equal length, compared in constant time.
    return channel !== undefined && constantTimeEqual(tokenHash(token), channel.tokenHash)
      ? channel
      : undefined;
  }

  /** Due at once (kept if this instance stops), then synced: now, or by the one sync pending for the calendar. */
  async function changed(calendarId: string): Promise<void> {
    await deps.sync.markDue(calendarId);
    deps.sync.afterNotice(calendarId).catch((error: unknown) => deps.onError(calendarId, error));
  }

  async function lifecycle(channel: StoredChannel, event: string): Promise<void> {
    if (event === 'reauthorizationRequired') {
      deps.upkeep.renew(channel).catch((error: unknown) => deps.onError(channel.calendarId, error));
    } else if (event === 'subscriptionRemoved') {
      await deleteChannel(deps.db, 'microsoft', channel.channelId);
      await deps.sync.markDue(channel.calendarId);
    } else if (event === 'missed') {
      await changed(channel.calendarId);
    }
  }

  return {
    async google({ channelId, token, state }) {
      const channel = await ours('google', channelId, token);
      if (channel === undefined) return false;
      if (state === 'exists' || state === 'not_exists') await changed(channel.calendarId);
      return true;
    },

    async microsoft(notifications) {
      const seen = new Set<string>();
      for (const { subscriptionId, clientState, lifecycleEvent } of notifications) {
        const key = `${subscriptionId} ${lifecycleEvent ?? ''}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const channel = await ours('microsoft', subscriptionId, clientState);
        if (channel === undefined) continue;
        if (lifecycleEvent === undefined) await changed(channel.calendarId);
        else await lifecycle(channel, lifecycleEvent);
      }
    },
  };
}
