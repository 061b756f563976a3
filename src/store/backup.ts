/**
 * An online backup of the embedded database: SQLite's backup API copies a consistent snapshot
 * while the service keeps running (writes made meanwhile are either in it or not, never half).
 */
import { closeSync, openSync, rmSync } from 'node:fs';
import { backup, DatabaseSync } from 'node:sqlite';
import { AppError } from '../errors.ts';

/** Copies the database at `source` to `target`, a file that must not exist yet (created 0600). */
export async function backupSqlite(source: string, target: string): Promise<void> {
  let created: number;
  try {
    // Exclusive creation: an existing file, a backup or not, is never overwritten.
    created = openSync(target, 'wx', 0o600);
  } catch (error) {
    const exists = (error as NodeJS.ErrnoException).code === 'EEXIST';
    throw new AppError(
      exists ? 'already_exists' : 'invalid_request',
      exists ? `${target} exists already; name a new file.` : `${target} cannot be created.`,
      { cause: error },
    );
  }
  closeSync(created);
  const db = new DatabaseSync(source);
  try {
    db.exec('pragma busy_timeout = 5000;');
    await backup(db, target);
  } catch (error) {
    rmSync(target, { force: true });
    throw error;
  } finally {
    db.close();
  }
}
