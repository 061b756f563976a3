/**
 * Change-notification channels (Google watch channels, Graph subscriptions): which calendar each
 * one watches, the hash of its token, and when it ends; which channels need tending (their copy
 * gone, ending soon, or outlived by a newer one) and which copied calendars have none yet.
 */
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { ProviderKind } from '../domain/providerFacts.ts';
import type { Database, PushChannelsTable } from './schema.ts';

type Db = Kysely<Database>;

export interface StoredChannel {
  provider: ProviderKind;
  channelId: string;
  calendarId: string;
  accountId: string;
  resourceId?: string;
  tokenHash: string;
  expiresAt: number;
  createdAt: number;
}

const toChannel = (row: PushChannelsTable): StoredChannel => ({
  provider: row.provider as ProviderKind,
  channelId: row.channel_id,
  calendarId: row.calendar_id,
  accountId: row.account_id,
  ...(row.resource_id === null ? {} : { resourceId: row.resource_id }),
  tokenHash: row.token_hash,
  expiresAt: Number(row.expires_at),
  createdAt: Number(row.created_at),
});

export async function insertChannel(db: Db, channel: StoredChannel): Promise<void> {
  await db
    .insertInto('push_channels')
    .values({
      provider: channel.provider,
      channel_id: channel.channelId,
      calendar_id: channel.calendarId,
      account_id: channel.accountId,
      resource_id: channel.resourceId ?? null,
      token_hash: channel.tokenHash,
      expires_at: channel.expiresAt,
      created_at: channel.createdAt,
    })
    .execute();
}

export async function findChannel(
  db: Db,
  provider: ProviderKind,
  channelId: string,
): Promise<StoredChannel | undefined> {
  const row = await db
    .selectFrom('push_channels')
    .selectAll()
    .where('provider', '=', provider)
    .where('channel_id', '=', channelId)
    .executeTakeFirst();
  return row && toChannel(row);
}

export async function deleteChannel(db: Db, provider: ProviderKind, channelId: string): Promise<void> {
  await db
    .deleteFrom('push_channels')
    .where('provider', '=', provider)
    .where('channel_id', '=', channelId)
    .execute();
}

/** Forgets channels past their end: the provider sends nothing more on them. */
export async function forgetEnded(db: Db, now: number): Promise<void> {
  await db.deleteFrom('push_channels').where('expires_at', '<=', now).execute();
  await db.deleteFrom('push_handshakes').where('until', '<=', now).execute();
}

/**
 * A channel being asked for, seen by every instance until it is ended or `until` passes (a
 * process that died mid-call leaves a row that runs out by itself).
 */
export async function beginHandshake(db: Db, provider: ProviderKind, until: number): Promise<string> {
  const id = randomUUID();
  await db.insertInto('push_handshakes').values({ id, provider, until }).execute();
  return id;
}

export async function endHandshake(db: Db, id: string): Promise<void> {
  await db.deleteFrom('push_handshakes').where('id', '=', id).execute();
}

/** Whether any instance is asking `provider` for a channel at `now`. */
export async function handshakeUnderWay(db: Db, provider: ProviderKind, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('push_handshakes')
    .select('id')
    .where('provider', '=', provider)
    .where('until', '>', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export interface ChannelToTend extends StoredChannel {
  /** Its calendar has no copy any more: stop it. */
  orphaned: boolean;
  /** Another channel on its calendar ends later (two instances watched at once): stop it. */
  outlived: boolean;
}

/** Channels to stop (orphaned, outlived) or renew (ending before `renewBefore`), at most `limit`. */
export async function channelsToTend(db: Db, renewBefore: number, limit: number): Promise<ChannelToTend[]> {
  const flagged = db
    .selectFrom('push_channels as p')
    .leftJoin('calendar_copies as c', 'c.calendar_id', 'p.calendar_id')
    .selectAll('p')
    .select((eb) => [
      eb.ref('c.calendar_id').as('copy'),
      eb.fn
        .max('p.expires_at')
        .over((over) => over.partitionBy('p.calendar_id'))
        .as('latest'),
    ])
    .as('t');
  const rows = await db
    .selectFrom(flagged)
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('t.expires_at', '<', renewBefore),
        eb('t.copy', 'is', null),
        eb('t.expires_at', '<', eb.ref('t.latest')),
      ]),
    )
    .orderBy('t.expires_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    ...toChannel(row),
    orphaned: row.copy === null,
    outlived: Number(row.expires_at) < Number(row.latest),
  }));
}

/**
 * Copied calendars with a completed sync and no channel, of active accounts of the given
 * providers: those to watch, at most `limit`.
 */
export async function calendarsToWatch(
  db: Db,
  providers: readonly ProviderKind[],
  limit: number,
): Promise<Array<{ calendarId: string; accountId: string }>> {
  if (providers.length === 0) return [];
  return db
    .selectFrom('calendar_copies as c')
    .innerJoin('calendars as cal', 'cal.id', 'c.calendar_id')
    .innerJoin('connected_accounts as a', 'a.id', 'cal.account_id')
    .where('c.synced_at', 'is not', null)
    .where('a.status', '=', 'active')
    .where('a.provider', 'in', providers)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('push_channels as p')
            .whereRef('p.calendar_id', '=', 'c.calendar_id')
            .select(sql`1`.as('one')),
        ),
      ),
    )
    .select(['c.calendar_id as calendarId', 'a.id as accountId'])
    .orderBy('c.synced_at')
    .limit(limit)
    .execute();
}
