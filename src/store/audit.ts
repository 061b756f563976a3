/**
 * The administrative audit log: who did what to which workspace or member. Never calendar content
 * and never secrets; each entry keeps the names it needs (an app's name, a policy before the
 * change) so that it still reads the same once they change.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export type AuditAction =
  | 'workspace.created'
  | 'member.added'
  | 'member.invited'
  | 'member.invitation_withdrawn'
  | 'member.role_changed'
  | 'member.removed'
  | 'policy.updated'
  | 'grant.created'
  | 'grant.changed'
  | 'grant.revoked'
  | 'client.blocked'
  | 'client.registered'
  | 'room.added'
  | 'room.removed'
  | 'rooms.imported';

export type AuditValue = string | number | boolean | null | readonly AuditValue[] | AuditDetail;
export interface AuditDetail {
  readonly [key: string]: AuditValue;
}

export interface AuditEntry {
  id: number;
  workspaceId: string | null;
  actorUserId: string | null;
  actorEmail: string | null;
  actorName: string | null;
  action: AuditAction;
  targetUserId: string | null;
  targetEmail: string | null;
  targetName: string | null;
  detail: AuditDetail;
  at: number;
}

export async function recordAudit(
  db: Db,
  entry: Omit<AuditEntry, 'id' | 'actorEmail' | 'actorName' | 'targetEmail' | 'targetName'>,
): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      workspace_id: entry.workspaceId,
      actor_user_id: entry.actorUserId,
      action: entry.action,
      target_user_id: entry.targetUserId,
      detail: JSON.stringify(entry.detail),
      created_at: entry.at,
    })
    .execute();
}

export async function auditOf(db: Db, workspaceId: string, limit = 100): Promise<AuditEntry[]> {
  const rows = await db
    .selectFrom('audit_log')
    .leftJoin('users as actor', 'actor.id', 'audit_log.actor_user_id')
    .leftJoin('users as target', 'target.id', 'audit_log.target_user_id')
    .select([
      'audit_log.id',
      'audit_log.workspace_id',
      'audit_log.actor_user_id',
      'actor.email as actor_email',
      'actor.name as actor_name',
      'audit_log.action',
      'audit_log.target_user_id',
      'target.email as target_email',
      'target.name as target_name',
      'audit_log.detail',
      'audit_log.created_at',
    ])
    .where('audit_log.workspace_id', '=', workspaceId)
    .orderBy('audit_log.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    workspaceId: r.workspace_id,
    actorUserId: r.actor_user_id,
    actorEmail: r.actor_email,
    actorName: r.actor_name,
    action: r.action as AuditAction,
    targetUserId: r.target_user_id,
    targetEmail: r.target_email,
    targetName: r.target_name,
    detail: JSON.parse(r.detail),
    at: r.created_at,
  }));
}
