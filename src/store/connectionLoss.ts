/**
 * PostgreSQL going away (a restart, a failover, `pg_terminate_backend`, the server unreachable) is
 * an outage of the service, not a bug of the request: every query that fails for it throws
 * `service_unavailable` (503 with Retry-After) on every surface alike, and a connection that dies
 * while idle or between a request's queries is dropped instead of ending the process. The pool
 * connects afresh on the next query, so the service serves again by itself when the server is back.
 */
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { AppError, isAppError } from '../errors.ts';
import { pgStatement } from './reusedStatements.ts';

/** Seconds a client is told to wait: about one restart of the database. */
const retryAfterSeconds = 5;

/** Socket failures of the connection to the server. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** SQLSTATEs of a server going away: admin, crash and startup shutdowns, class 08 (connection exception). */
const serverGoingAway = (code: string) =>
  code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('08');

/** What pg says when the connection (not the statement) failed. */
const driverMessages =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/;

export function isConnectionLoss(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string' && (socketCodes.has(code) || serverGoingAway(code))) return true;
  if (typeof message === 'string' && driverMessages.test(message)) return true;
  // Several addresses tried (IPv4 and IPv6): an AggregateError of socket failures.
  return Array.isArray(errors) && errors.length > 0 && errors.every(isConnectionLoss);
}

/** The answer while the database is away: 503 `service_unavailable`, retry in a few seconds. */
export const databaseUnavailable = (cause: unknown): AppError =>
  isAppError(cause) && cause.code === 'service_unavailable'
    ? cause
    : new AppError('service_unavailable', undefined, { cause, retryAfter: retryAfterSeconds });

/** `service_unavailable` for a lost connection; anything else unchanged. */
export const unavailableIfLost = (error: unknown): unknown =>
  isConnectionLoss(error) ? databaseUnavailable(error) : error;

const rethrow = (error: unknown): never => {
  throw unavailableIfLost(error);
};

/**
 * The pool as Kysely uses it, its failures of connection turned into `service_unavailable`.
 * `onLost` hears a connection dying outside a query (once per spell: until a connection is made
 * again); without a listener there, Node would end the process on pg's 'error' event. Every
 * statement passes here, so here too a reused one gets its name (store/reusedStatements.ts).
 */
export function guardedPool(pool: pg.Pool, onLost: (error: unknown) => void): PostgresPool {
  let told = false;
  const lost = (error: unknown) => {
    if (!told) onLost(error);
    told = true;
  };
  // Idle clients report through the pool; a client a request holds reports on itself.
  pool.on('error', lost);
  pool.on('connect', (client) => {
    told = false;
    client.on('error', lost);
  });
  // One wrapper per client: Kysely keeps its connection per client object.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let wrapper = wrappers.get(client);
    if (wrapper === undefined) {
      wrapper = {
        // Kysely streams no cursors here: only the statement form is asked of it.
        query: ((text: string, parameters: readonly unknown[]) =>
          client
            .query(pgStatement(text, [...parameters]))
            .catch(rethrow)) as unknown as PostgresPoolClient['query'],
        release: (destroy) => client.release(destroy),
      };
      wrappers.set(client, wrapper);
    }
    return wrapper;
  };
  return {
    options: pool.options,
    connect: () => pool.connect().then(wrap, rethrow),
    end: () => pool.end(),
  };
}
