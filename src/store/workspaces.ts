import type { Kysely } from 'kysely';
import type { DetailLevel } from '../domain/detailLevels.ts';
import type { Role } from '../policy/roles.ts';
import type { Scope, WorkspacePolicy } from '../policy/workspacePolicy.ts';
import { dropUnreachedCopies } from './copyMembership.ts';
import { engineOf } from './database.ts';
import { type Database, flag } from './schema.ts';

type Db = Kysely<Database>;

export interface Workspace {
  id: string;
  name: string;
  createdAt: number;
}

export interface Member {
  userId: string;
  email: string;
  name: string;
  role: Role;
  since: number;
}

export async function insertWorkspace(db: Db, workspace: Workspace, policy: WorkspacePolicy): Promise<void> {
  await db
    .insertInto('workspaces')
    .values({ id: workspace.id, name: workspace.name, created_at: workspace.createdAt })
    .execute();
  await savePolicy(db, workspace.id, policy, workspace.createdAt);
}

export async function findWorkspace(db: Db, id: string): Promise<Workspace | undefined> {
  const row = await db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  return row && { id: row.id, name: row.name, createdAt: row.created_at };
}

/**
 * Finds the workspace and, inside a transaction, locks it until commit, so that concurrent
 * membership changes (two owners demoting each other) are decided one after the other.
 * SQLite needs no row lock: its write transactions (`begin immediate`) are already serial.
 */
export async function lockWorkspace(db: Db, id: string): Promise<Workspace | undefined> {
  let query = db.selectFrom('workspaces').selectAll().where('id', '=', id);
  if (engineOf(db) === 'postgres') query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && { id: row.id, name: row.name, createdAt: row.created_at };
}

/** The workspaces a user belongs to, with the user's role in each. */
export async function workspacesOf(db: Db, userId: string): Promise<Array<Workspace & { role: Role }>> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select(['workspaces.id', 'workspaces.name', 'workspaces.created_at', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .orderBy('workspaces.name')
    .orderBy('workspaces.id')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, role: r.role as Role }));
}

export async function roleOf(db: Db, workspaceId: string, userId: string): Promise<Role | undefined> {
  const row = await db
    .selectFrom('memberships')
    .select('role')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role as Role | undefined;
}

export async function listMembers(db: Db, workspaceId: string): Promise<Member[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email', 'users.name', 'memberships.role', 'memberships.created_at'])
    .where('memberships.workspace_id', '=', workspaceId)
    .orderBy('users.email_key')
    .execute();
  return rows.map((r) => ({
    userId: r.id,
    email: r.email,
    name: r.name,
    role: r.role as Role,
    since: r.created_at,
  }));
}

/** The ids of a workspace's members whose sign-in addresses have these keys, by key. */
export async function membersByEmailKey(
  db: Db,
  workspaceId: string,
  keys: readonly string[],
): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.email_key', 'u.id'])
    .where('m.workspace_id', '=', workspaceId)
    .where('u.email_key', 'in', keys)
    .execute();
  return new Map(rows.map((r) => [r.email_key, r.id]));
}

export async function countOwners(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertMembership(
  db: Db,
  membership: { workspaceId: string; userId: string; role: Role; now: number },
): Promise<void> {
  await db
    .insertInto('memberships')
    .values({
      workspace_id: membership.workspaceId,
      user_id: membership.userId,
      role: membership.role,
      created_at: membership.now,
    })
    .execute();
}

export async function updateMembershipRole(
  db: Db,
  workspaceId: string,
  userId: string,
  role: Role,
): Promise<void> {
  await db
    .updateTable('memberships')
    .set({ role })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .execute();
}

export async function deleteMembership(db: Db, workspaceId: string, userId: string): Promise<void> {
  await db
    .deleteFrom('memberships')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .execute();
  // Their grants in this workspace no longer reach their calendars: no copy stays behind.
  await dropUnreachedCopies(db);
}

export async function findPolicy(db: Db, workspaceId: string): Promise<WorkspacePolicy | undefined> {
  const row = await db
    .selectFrom('workspace_policies')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return (
    row && {
      allowedScopes: JSON.parse(row.allowed_scopes) as Scope[],
      maxDetailLevel: row.max_detail_level as DetailLevel,
      defaultDetailLevel: row.default_detail_level as DetailLevel,
      privateDetailsAllowed: flag(row.private_details_allowed),
      colleagueAvailability: flag(row.colleague_availability),
      allowedClients: row.allowed_clients === null ? null : (JSON.parse(row.allowed_clients) as string[]),
      blockedClients: row.blocked_clients === null ? [] : (JSON.parse(row.blocked_clients) as string[]),
    }
  );
}

export async function savePolicy(
  db: Db,
  workspaceId: string,
  policy: WorkspacePolicy,
  now: number,
): Promise<void> {
  const values = {
    allowed_scopes: JSON.stringify(policy.allowedScopes),
    max_detail_level: policy.maxDetailLevel,
    default_detail_level: policy.defaultDetailLevel,
    private_details_allowed: policy.privateDetailsAllowed,
    colleague_availability: policy.colleagueAvailability,
    allowed_clients: policy.allowedClients === null ? null : JSON.stringify(policy.allowedClients),
    blocked_clients: policy.blockedClients.length === 0 ? null : JSON.stringify(policy.blockedClients),
    updated_at: now,
  };
  await db
    .insertInto('workspace_policies')
    .values({ workspace_id: workspaceId, ...values })
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet(values))
    .execute();
}
