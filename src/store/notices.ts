/**
 * What one instance tells the others on one PostgreSQL, by LISTEN/NOTIFY: a grant ended (its id)
 * or the signing keys changed. Each process listens on one connection of its own, reconnecting
 * with backoff; notices sent while it was away are lost, so every (re)connection is announced to
 * catch up from the database. On SQLite there is one process and nothing to tell.
 */
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import { engineOf } from './database.ts';
import { pgDriver } from './pgDriver.ts';
import type { Database } from './schema.ts';

export const noticeChannels = {
  grantEnded: 'cas_grant_ended',
  signingKeys: 'cas_signing_keys',
} as const;
export type NoticeChannel = (typeof noticeChannels)[keyof typeof noticeChannels];

/** Tells every listening instance, this one included; inside a transaction, at its commit. */
export async function publishNotice(
  db: Kysely<Database>,
  channel: NoticeChannel,
  payload = '',
): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}

export interface NoticeHandlers {
  onNotice(channel: NoticeChannel, payload: string): void;
  /** Listening, first or again: what was told in between is not delivered. */
  onListening(): void;
  /** The first failure of a spell (later attempts of the same spell are not told). */
  onError(error: unknown): void;
}

export interface NoticeListener {
  /** Resolves when listening for the first time. */
  listening: Promise<void>;
  close(): Promise<void>;
}

const maxBackoffMs = 5_000;
export const noticeConnectionName = 'calendar-access notices';

export function listenForNotices(url: string, handlers: NoticeHandlers): NoticeListener {
  let closed = false;
  let client: pg.Client | undefined;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  let first: () => void;
  const listening = new Promise<void>((resolve) => {
    first = resolve;
  });

  const retry = (failed: pg.Client, error: unknown) => {
    // One retry per client, however many of its events report the loss.
    if (closed || client !== failed) return;
    client = undefined;
    failed.end().catch(() => {});
    if (failures === 0) handlers.onError(error);
    timer = setTimeout(connect, Math.min(100 * 2 ** failures, maxBackoffMs));
    failures += 1;
  };

  function connect(): void {
    const candidate = new (pgDriver().Client)({
      connectionString: url,
      connectionTimeoutMillis: maxBackoffMs,
      // Named for operators (pg_stat_activity), one per instance.
      application_name: noticeConnectionName,
    });
    client = candidate;
    candidate.on('notification', (message) =>
      handlers.onNotice(message.channel as NoticeChannel, message.payload ?? ''),
    );
    candidate.on('error', (error) => retry(candidate, error));
    candidate.on('end', () => retry(candidate, new Error('the notice connection ended')));
    void (async () => {
      try {
        await candidate.connect();
        for (const channel of Object.values(noticeChannels)) await candidate.query(`listen ${channel}`);
      } catch (error) {
        retry(candidate, error);
        return;
      }
      if (closed || client !== candidate) return;
      failures = 0;
      handlers.onListening();
      first();
    })();
  }

  connect();
  return {
    listening,
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}
