/**
 * The shared per-grant request count on Redis (`REDIS_URL`): INCRBY and PEXPIRE of one key per
 * grant and window in one MULTI, so a key never outlives its window by more than another one.
 */
import { createClient, type RedisClientType } from 'redis';
import { budgetWindowMs } from '../store/grantBudgetWindows.ts';
import type { RequestCounter } from './grantBudget.ts';

export type Redis = RedisClientType;

/** A count fails fast rather than waits: the budget then counts locally (grantBudget.ts). */
const commandTimeoutMs = 500;

/**
 * A client that connects in the background and reconnects with backoff (up to 5 s); while it is
 * away, commands fail at once instead of queueing. `firstAttempt` settles when the first
 * connection is made or has failed (within the connect timeout).
 */
export function connectRedis(
  url: string,
  onError: (error: unknown) => void,
): { client: Redis; firstAttempt: Promise<void> } {
  const client: Redis = createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: commandTimeoutMs },
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000) },
  });
  // Told once per spell of failures, not at every reconnection attempt.
  let told = false;
  const tell = (error: unknown) => {
    if (!told) onError(error);
    told = true;
  };
  client.on('error', tell);
  client.on('ready', () => {
    told = false;
  });
  const firstAttempt = new Promise<void>((resolve) => {
    client.once('ready', resolve);
    client.once('error', () => resolve());
  });
  // Settles only once connected (it retries meanwhile), or on an error no retry mends.
  client.connect().catch(tell);
  return { client, firstAttempt };
}

export function redisCounter(client: Redis, prefix: string): RequestCounter {
  return async (grantId, start, requests) => {
    // Between reconnection attempts the client would wait for the next one: fail at once instead.
    if (!client.isReady) throw new Error('Redis is not connected');
    const key = `${prefix}grant-budget:${grantId}:${start}`;
    const [count] = await client
      .multi()
      .incrBy(key, requests)
      .pExpire(key, 2 * budgetWindowMs)
      .exec();
    return Number(count);
  };
}
