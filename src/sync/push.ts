/**
 * Change notifications (Google watch channels, Graph subscriptions), kept by the sync rounds:
 * a copied calendar of a provider with push gets a channel once its copy completed a sync, a
 * channel ending within a day is replaced (the new one watched before the old one is stopped),
 * and a channel whose calendar lost its copy is stopped and forgotten. Providers send only to
 * an https address, so this runs only with one. A failure is logged (the calendar, the step and
 * the reason, never content) and that calendar is left alone for a while before the next try.
 */
import { randomUUID } from 'node:crypto';
import { type ConnectionDeps, withConnection } from '../calendars/connections/connections.ts';
import { exclusionReason } from '../calendars/reads/readEvents.ts';
import type { ProviderKind } from '../domain/providerFacts.ts';
import { isAppError } from '../errors.ts';
import { epochMs } from '../lib/clock.ts';
import { randomToken, tokenHash } from '../lib/secrets.ts';
import type { PushChannels } from '../providers/port.ts';
import { findAccount, findCalendars } from '../store/connectedAccounts.ts';
import {
  beginHandshake,
  type ChannelToTend,
  calendarsToWatch,
  channelsToTend,
  deleteChannel,
  endHandshake,
  forgetEnded,
  handshakeUnderWay,
  insertChannel,
  type StoredChannel,
} from '../store/pushChannels.ts';

export interface PushDeps extends ConnectionDeps {
  /** The public https address: notifications go to `${address}/hooks/google` and `/hooks/microsoft`. */
  address: string;
  log?: (entry: PushLogEntry) => void;
}

export interface PushLogEntry {
  calendarId: string;
  step: 'watch' | 'renew' | 'stop';
  reason: string;
}

export interface PushUpkeep {
  /** One round: ended channels forgotten, orphaned and outlived ones stopped, ending ones renewed, new ones watched. */
  tend(): Promise<void>;
  /** A new channel on the calendar, then the old one stopped (Graph's reauthorizationRequired). */
  renew(channel: StoredChannel): Promise<void>;
  /** Whether some instance is asking the provider for a channel now (Graph checks the address meanwhile). */
  watching(provider: ProviderKind): Promise<boolean>;
}

const dayMs = 86_400_000;
/** Asked of both providers: Google's default lifetime; Graph's adapter caps it to Graph's limit. */
const lifetimeMs = 7 * dayMs;
/** Channels renewed when they end within this. */
const renewWithinMs = dayMs;
/** Provider calls of one kind per round, so a round stays short. */
const perRound = 20;
/** After a failure a calendar rests 1 minute, doubling up to an hour. */
const firstRestMs = 60_000;
const longestRestMs = 3_600_000;
/** How long a watch call may be under way (provider timeouts with retries); a crash's row lasts this long. */
const handshakeMs = 5 * 60_000;

export function createPushUpkeep(deps: PushDeps): PushUpkeep {
  const resting = new Map<string, { failures: number; until: number }>();
  const kinds = (Object.keys(deps.providers) as ProviderKind[]).filter((k) => deps.providers[k]?.push);
  const pushOf = (kind: ProviderKind) => deps.providers[kind]?.push as PushChannels | undefined;

  async function watch(calendarId: string, accountId: string): Promise<void> {
    const [account, [calendar]] = await Promise.all([
      findAccount(deps.db, accountId),
      findCalendars(deps.db, [calendarId]),
    ]);
    const push = account && pushOf(account.provider);
    if (account === undefined || calendar === undefined || push === undefined) return;
    const token = randomToken();
    const now = epochMs(deps.clock);
    // Graph's check may reach any instance behind the load balancer: each learns of it here.
    const handshake = await beginHandshake(deps.db, account.provider, now + handshakeMs);
    const channel = await withConnection(deps, account, (access) =>
      push.watch(access, calendar, {
        channelId: randomUUID(),
        address: `${deps.address}/hooks/${account.provider}`,
        token,
        expiresAt: now + lifetimeMs,
      }),
    ).finally(() => endHandshake(deps.db, handshake));
    await insertChannel(deps.db, {
      provider: account.provider,
      channelId: channel.channelId,
      calendarId,
      accountId,
      ...(channel.resourceId === undefined ? {} : { resourceId: channel.resourceId }),
      tokenHash: tokenHash(token),
      expiresAt: channel.expiresAt,
      createdAt: now,
    });
  }

  async function stop(channel: StoredChannel): Promise<void> {
    const account = await findAccount(deps.db, channel.accountId);
    const push = account && pushOf(account.provider);
    if (account !== undefined && push !== undefined) {
      await withConnection(deps, account, (access) =>
        push.stop(access, {
          channelId: channel.channelId,
          ...(channel.resourceId === undefined ? {} : { resourceId: channel.resourceId }),
          expiresAt: channel.expiresAt,
        }),
      );
    }
    await deleteChannel(deps.db, channel.provider, channel.channelId);
  }

  async function renew(channel: StoredChannel): Promise<void> {
    await watch(channel.calendarId, channel.accountId);
    await stop(channel);
  }

  /** Runs one step for a calendar; a failure is logged and makes the calendar rest. */
  async function attempt(calendarId: string, step: PushLogEntry['step'], work: () => Promise<void>) {
    try {
      await work();
      resting.delete(calendarId);
    } catch (error) {
      if (!isAppError(error)) throw error;
      const failures = (resting.get(calendarId)?.failures ?? 0) + 1;
      const restMs = Math.min(firstRestMs * 2 ** (failures - 1), longestRestMs);
      resting.set(calendarId, { failures, until: epochMs(deps.clock) + restMs });
      deps.log?.({ calendarId, step, reason: exclusionReason(error) ?? error.code });
    }
  }

  /** The first `perRound` rows whose calendar is not resting (as many more asked of the query). */
  const awake = <T extends { calendarId: string }>(rows: T[], now: number) =>
    rows.filter((row) => (resting.get(row.calendarId)?.until ?? 0) <= now).slice(0, perRound);

  const stepFor = (channel: ChannelToTend) => (channel.orphaned || channel.outlived ? 'stop' : 'renew');

  return {
    async tend() {
      const now = epochMs(deps.clock);
      await forgetEnded(deps.db, now);
      // Calendars that rested long ago and were not tried since are gone or fine: forgotten.
      for (const [id, rest] of resting) if (rest.until + longestRestMs < now) resting.delete(id);
      const limit = perRound + resting.size;
      for (const channel of awake(await channelsToTend(deps.db, now + renewWithinMs, limit), now)) {
        const step = stepFor(channel);
        await attempt(channel.calendarId, step, () => (step === 'stop' ? stop(channel) : renew(channel)));
      }
      for (const { calendarId, accountId } of awake(await calendarsToWatch(deps.db, kinds, limit), now)) {
        await attempt(calendarId, 'watch', () => watch(calendarId, accountId));
      }
    },
    renew: (channel) => attempt(channel.calendarId, 'renew', () => renew(channel)),
    watching: (provider) => handshakeUnderWay(deps.db, provider, epochMs(deps.clock)),
  };
}
