/**
 * Workspace administration: creating workspaces, managing members and policy. Every change is
 * authorised against the actor's role in that very workspace and audited in the same transaction.
 * `system` is the operator at the CLI, who needs no membership.
 */

import type { Kysely } from 'kysely';
import { AppError } from '../errors.ts';
import { type Clock, epochMs } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { randomToken, tokenHash } from '../lib/secrets.ts';
import { requiredText } from '../lib/text.ts';
import { assertMayChangeMembership, canAdminister, parseRole, type Role } from '../policy/roles.ts';
import {
  defaultPolicy,
  type PolicyInput,
  parsePolicy,
  type WorkspacePolicy,
} from '../policy/workspacePolicy.ts';
import { liveGrantIds, markGrantsRevoked } from '../store/accessGrants.ts';
import { auditOf, recordAudit } from '../store/audit.ts';
import { accountsOf, deleteAccount } from '../store/connectedAccounts.ts';
import { reconcileCopies } from '../store/copyMembership.ts';
import { checkpointAfterPurge } from '../store/database.ts';
import {
  consumeToken,
  insertOneTimeToken,
  type PendingInvitation,
  pendingInvitations,
} from '../store/oneTimeTokens.ts';
import { roomsOf, type StoredRoom } from '../store/rooms.ts';
import type { Database } from '../store/schema.ts';
import { findUserByEmailKey, findUserById } from '../store/users.ts';
import {
  countOwners,
  deleteMembership,
  findPolicy,
  findWorkspace,
  insertMembership,
  insertWorkspace,
  listMembers,
  lockWorkspace,
  roleOf,
  savePolicy,
  updateMembershipRole,
  type Workspace,
} from '../store/workspaces.ts';
import { parseEmail } from './email.ts';

type Db = Kysely<Database>;
export type Actor = { userId: string } | 'system';

export const invitationTtlMs = 7 * 24 * 3_600_000;

/** The audit log's actor: a member, or null for the operator. */
export const actorId = (actor: Actor): string | null => (actor === 'system' ? null : actor.userId);

const notFound = () => new AppError('not_found', 'No such workspace.');

/**
 * The actor's role, or not_found for non-members: outsiders cannot learn that a workspace exists.
 * Locks the workspace for the rest of the transaction, so concurrent changes are serialised.
 */
async function actorRole(db: Db, workspaceId: string, actor: Actor): Promise<Role | undefined> {
  if ((await lockWorkspace(db, workspaceId)) === undefined) throw notFound();
  if (actor === 'system') return 'owner';
  const role = await roleOf(db, workspaceId, actor.userId);
  if (role === undefined) throw notFound();
  return role;
}

/** The actor's role when they may administer the workspace; locks it like `actorRole`. */
export async function requireAdmin(db: Db, workspaceId: string, actor: Actor): Promise<Role> {
  const role = await actorRole(db, workspaceId, actor);
  if (role === undefined || !canAdminister(role)) {
    throw new AppError('forbidden', 'Only workspace owners and admins can do this.');
  }
  return role;
}

export async function createWorkspace(
  db: Db,
  clock: Clock,
  input: { name: unknown; ownerId: string },
  actor: Actor,
): Promise<Workspace> {
  const name = requiredText(input.name, 'name', 'a workspace name');
  const now = epochMs(clock);
  return db.transaction().execute(async (trx) => {
    if ((await findUserById(trx, input.ownerId)) === undefined)
      throw new AppError('not_found', 'No such user.');
    const workspace = { id: newId('ws'), name, createdAt: now };
    await insertWorkspace(trx, workspace, defaultPolicy);
    await insertMembership(trx, { workspaceId: workspace.id, userId: input.ownerId, role: 'owner', now });
    await recordAudit(trx, {
      workspaceId: workspace.id,
      actorUserId: actorId(actor),
      action: 'workspace.created',
      targetUserId: input.ownerId,
      detail: { name },
      at: now,
    });
    return workspace;
  });
}

export interface WorkspaceOverview {
  workspace: Workspace;
  role: Role;
  members: Awaited<ReturnType<typeof listMembers>>;
  invitations: PendingInvitation[];
  policy: WorkspacePolicy;
  rooms: StoredRoom[];
  audit: Awaited<ReturnType<typeof auditOf>>;
}

export async function workspaceOverview(
  db: Db,
  clock: Clock,
  workspaceId: string,
  actor: Actor,
): Promise<WorkspaceOverview> {
  const role = await requireAdmin(db, workspaceId, actor);
  const [workspace, members, invitations, policy, rooms, audit] = await Promise.all([
    findWorkspace(db, workspaceId),
    listMembers(db, workspaceId),
    pendingInvitations(db, workspaceId, epochMs(clock)),
    findPolicy(db, workspaceId),
    roomsOf(db, workspaceId),
    auditOf(db, workspaceId),
  ]);
  return {
    workspace: workspace!,
    role,
    members,
    invitations,
    policy: policy ?? defaultPolicy,
    rooms,
    audit,
  };
}

export type AddMemberResult =
  | { kind: 'added'; userId: string }
  | {
      kind: 'invited';
      invitationToken: string;
      /** What an invitation e-mail says. */
      email: string;
      role: Role;
      workspaceName: string;
      expiresAt: number;
    };

/**
 * Adds an existing account by e-mail, or — when there is none — creates a single-use invitation
 * link (valid 7 days) to be e-mailed or passed on; accepting it creates the account and membership.
 */
export async function addMember(
  db: Db,
  clock: Clock,
  workspaceId: string,
  input: { email: unknown; role: unknown },
  actor: Actor,
): Promise<AddMemberResult> {
  const { email, key } = parseEmail(input.email);
  const role = parseRole(input.role);
  const now = epochMs(clock);
  return db.transaction().execute(async (trx) => {
    assertMayChangeMembership(await actorRole(trx, workspaceId, actor), undefined, role);
    const user = await findUserByEmailKey(trx, key);
    if (user === undefined) {
      const token = randomToken();
      const expiresAt = now + invitationTtlMs;
      await insertOneTimeToken(
        trx,
        {
          tokenHash: tokenHash(token),
          purpose: 'invitation',
          workspaceId,
          email,
          role,
          createdBy: actorId(actor),
          expiresAt,
        },
        now,
      );
      await recordAudit(trx, {
        workspaceId,
        actorUserId: actorId(actor),
        action: 'member.invited',
        targetUserId: null,
        detail: { email, role },
        at: now,
      });
      const workspaceName = (await findWorkspace(trx, workspaceId))!.name;
      return { kind: 'invited', invitationToken: token, email, role, workspaceName, expiresAt };
    }
    if ((await roleOf(trx, workspaceId, user.id)) !== undefined) {
      throw new AppError('already_exists', `${user.email} is already a member of this workspace.`, {
        details: { field: 'email' },
      });
    }
    await insertMembership(trx, { workspaceId, userId: user.id, role, now });
    await recordAudit(trx, {
      workspaceId,
      actorUserId: actorId(actor),
      action: 'member.added',
      targetUserId: user.id,
      detail: { role },
      at: now,
    });
    return { kind: 'added', userId: user.id };
  });
}

/**
 * Withdraws a pending invitation: its link stops working at once. Who may invite to a role may
 * withdraw such an invitation; one that is no longer pending (accepted, expired) is not found.
 */
export async function withdrawInvitation(
  db: Db,
  clock: Clock,
  workspaceId: string,
  invitationHash: unknown,
  actor: Actor,
): Promise<void> {
  const now = epochMs(clock);
  await db.transaction().execute(async (trx) => {
    const actorsRole = await requireAdmin(trx, workspaceId, actor);
    const invitation = (await pendingInvitations(trx, workspaceId, now)).find(
      (i) => i.tokenHash === invitationHash,
    );
    if (invitation === undefined) throw new AppError('not_found', 'No such pending invitation.');
    assertMayChangeMembership(actorsRole, undefined, invitation.role);
    if (!(await consumeToken(trx, invitation.tokenHash, now))) {
      throw new AppError('not_found', 'No such pending invitation.');
    }
    await recordAudit(trx, {
      workspaceId,
      actorUserId: actorId(actor),
      action: 'member.invitation_withdrawn',
      targetUserId: null,
      detail: { email: invitation.email, role: invitation.role },
      at: now,
    });
  });
}

async function currentRole(db: Db, workspaceId: string, userId: string): Promise<Role> {
  const role = await roleOf(db, workspaceId, userId);
  if (role === undefined) throw new AppError('not_found', 'No such member.');
  return role;
}

async function assertOwnerRemains(
  db: Db,
  workspaceId: string,
  from: Role,
  to: Role | undefined,
): Promise<void> {
  if (from === 'owner' && to !== 'owner' && (await countOwners(db, workspaceId)) <= 1) {
    throw new AppError('conflict', 'A workspace needs at least one owner. Make someone else an owner first.');
  }
}

export async function changeRole(
  db: Db,
  clock: Clock,
  workspaceId: string,
  userId: string,
  newRole: unknown,
  actor: Actor,
): Promise<void> {
  const role = parseRole(newRole);
  const now = epochMs(clock);
  await db.transaction().execute(async (trx) => {
    const actorsRole = await requireAdmin(trx, workspaceId, actor);
    const from = await currentRole(trx, workspaceId, userId);
    assertMayChangeMembership(actorsRole, from, role);
    if (from === role) return;
    await assertOwnerRemains(trx, workspaceId, from, role);
    await updateMembershipRole(trx, workspaceId, userId, role);
    await recordAudit(trx, {
      workspaceId,
      actorUserId: actorId(actor),
      action: 'member.role_changed',
      targetUserId: userId,
      detail: { from, to: role },
      at: now,
    });
  });
}

/**
 * Removes a member with what they brought into this workspace, in one transaction: their grants
 * here end, and their connected accounts here go with their sealed credentials, calendars,
 * copies and push channels (their accounts in other workspaces stay). Resolves with the ended
 * grants, for the authorization side to forget.
 */
export async function removeMember(
  db: Db,
  clock: Clock,
  workspaceId: string,
  userId: string,
  actor: Actor,
): Promise<string[]> {
  const now = epochMs(clock);
  const ended = await db.transaction().execute(async (trx) => {
    const actorsRole = await requireAdmin(trx, workspaceId, actor);
    const from = await currentRole(trx, workspaceId, userId);
    assertMayChangeMembership(actorsRole, from, undefined);
    await assertOwnerRemains(trx, workspaceId, from, undefined);
    const grants: string[] = [];
    for (const id of await liveGrantIds(trx, { userId, workspaceId }))
      grants.push(...(await markGrantsRevoked(trx, { id }, 'the person left the workspace', now)));
    for (const account of await accountsOf(trx, userId, workspaceId)) await deleteAccount(trx, account.id);
    await deleteMembership(trx, workspaceId, userId);
    await recordAudit(trx, {
      workspaceId,
      actorUserId: actorId(actor),
      action: 'member.removed',
      targetUserId: userId,
      detail: { role: from },
      at: now,
    });
    return grants;
  });
  // Their calendars' copies went with their accounts: no text of them stays in SQLite's log.
  await checkpointAfterPurge(db);
  return ended;
}

export async function updatePolicy(
  db: Db,
  clock: Clock,
  workspaceId: string,
  input: PolicyInput,
  actor: Actor,
): Promise<WorkspacePolicy> {
  const policy = parsePolicy(input);
  const now = epochMs(clock);
  const shared = await db.transaction().execute(async (trx) => {
    await requireAdmin(trx, workspaceId, actor);
    const before = (await findPolicy(trx, workspaceId)) ?? defaultPolicy;
    await savePolicy(trx, workspaceId, policy, now);
    await recordAudit(trx, {
      workspaceId,
      actorUserId: actorId(actor),
      action: 'policy.updated',
      targetUserId: null,
      // The policy before, so that the log can say what changed.
      detail: { ...policy, before: { ...before } },
      at: now,
    });
    return before.colleagueAvailability;
  });
  // Busy-only copies follow the setting at once: off, those no app reaches are deleted now.
  if (shared !== policy.colleagueAvailability) await reconcileCopies(db, now);
  return policy;
}
