/**
 * A write the database refused for want of space — SQLite's SQLITE_FULL, PostgreSQL's disk_full
 * (SQLSTATE 53100) — as `storage_full`: a stable code and a Retry-After instead of an internal
 * error, the engine's own message kept as the cause for the log.
 */
import { AppError, isAppError } from '../errors.ts';
import { unavailableIfLost } from './connectionLoss.ts';

const sqliteFull = 13;
const postgresDiskFull = '53100';
/** Space seldom returns within seconds; a minute keeps clients from hammering a full disk. */
const retryAfterSeconds = 60;

function engineSaysFull(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { errcode, code } = error as { errcode?: unknown; code?: unknown };
  // node:sqlite gives the extended result code; its low byte is the primary one.
  return (typeof errcode === 'number' && (errcode & 0xff) === sqliteFull) || code === postgresDiskFull;
}

/** The `storage_full` error this failure is, or undefined when it is not one. */
export function storageFull(error: unknown): AppError | undefined {
  if (isAppError(error)) return error.code === 'storage_full' ? error : undefined;
  if (!engineSaysFull(error)) return undefined;
  return new AppError(
    'storage_full',
    'The service cannot save anything now: its storage is full. Nothing was saved; try again later.',
    // In the body too: an MCP tool error has no header.
    { cause: error, retryAfter: retryAfterSeconds, details: { retryAfter: retryAfterSeconds } },
  );
}

/**
 * Rethrows any failure but the database's being full or away (`storage_full`,
 * `service_unavailable`): for saving what may be lost without failing the caller — once a
 * provider made a write, an error would invite the client to repeat it.
 */
export function despiteStorageOutage(error: unknown): void {
  if (storageFull(error) !== undefined) return;
  const lost = unavailableIfLost(error);
  if (!isAppError(lost) || lost.code !== 'service_unavailable') throw error;
}
