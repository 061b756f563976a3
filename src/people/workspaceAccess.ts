/**
 * Who may administer a workspace, checked inside every administration use case (never left to
 * the order of calls): owners and admins; a member is refused (403) and an outsider learns
 * nothing (404). `system` is the operator at the CLI, who needs no membership.
 */
import type { Kysely } from 'kysely';
import { AppError } from '../errors.ts';
import { canAdminister, type Role } from '../policy/roles.ts';
import type { Database } from '../store/schema.ts';
import { lockWorkspace, roleOf } from '../store/workspaces.ts';

type Db = Kysely<Database>;
export type Actor = { userId: string } | 'system';

export const actorId = (actor: Actor): string | null => (actor === 'system' ? null : actor.userId);

const workspaceNotFound = () => new AppError('not_found', 'No such workspace.');

/**
 * The actor's role, or not_found for non-members: outsiders cannot learn that a workspace exists.
 * Locks the workspace for the rest of the transaction, so concurrent changes are serialised.
 */
export async function actorRole(db: Db, workspaceId: string, actor: Actor): Promise<Role> {
  if ((await lockWorkspace(db, workspaceId)) === undefined) throw workspaceNotFound();
  if (actor === 'system') return 'owner';
  const role = await roleOf(db, workspaceId, actor.userId);
  if (role === undefined) throw workspaceNotFound();
  return role;
}

/** The actor's role when they may administer the workspace; locks it like `actorRole`. */
export async function requireAdmin(db: Db, workspaceId: string, actor: Actor): Promise<Role> {
  const role = await actorRole(db, workspaceId, actor);
  if (!canAdminister(role)) {
    throw new AppError('forbidden', 'Only workspace owners and admins can do this.');
  }
  return role;
}
