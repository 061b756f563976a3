/**
 * Workspace administration: creating workspaces, its members and invitations. Every change is
 * authorised against the actor's role in that very workspace (workspaceAccess.ts) and audited
 * in the same transaction; what follows it outside the database (an invitation e-mailed, ended
 * grants' tokens) goes through the ports main.ts gives (administrationPorts.ts).
 */

import { AppError } from '../errors.ts';
import { epochMs } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { randomToken, tokenHash } from '../lib/secrets.ts';
import { requiredText } from '../lib/text.ts';
import { assertMayChangeMembership, parseRole, type Role } from '../policy/roles.ts';
import { defaultPolicy } from '../policy/workspacePolicy.ts';
import { liveGrantIds, markGrantsRevoked } from '../store/accessGrants.ts';
import { recordAudit } from '../store/audit.ts';
import { accountsOf, deleteAccount } from '../store/connectedAccounts.ts';
import { checkpointAfterPurge } from '../store/database.ts';
import { consumeToken, insertOneTimeToken, pendingInvitations } from '../store/oneTimeTokens.ts';
import { findUserByEmailKey, findUserById } from '../store/users.ts';
import {
  countOwners,
  deleteMembership,
  findWorkspace,
  insertMembership,
  insertWorkspace,
  roleOf,
  updateMembershipRole,
  type Workspace,
} from '../store/workspaces.ts';
import type { AdministrationDeps } from './administrationPorts.ts';
import { parseEmail } from './email.ts';
import { mailInvitation } from './invitationMail.ts';
import { invitationLink } from './links.ts';
import { type Actor, actorId, actorRole, requireAdmin } from './workspaceAccess.ts';

type Store = Pick<AdministrationDeps, 'db' | 'clock'>;

const invitationTtlMs = 7 * 24 * 3_600_000;

export async function createWorkspace(
  deps: Store,
  input: { name: unknown; ownerId: string },
  actor: Actor,
): Promise<Workspace> {
  const name = requiredText(input.name, 'name', 'a workspace name');
  const now = epochMs(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
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

export type AddMemberResult =
  | { kind: 'added'; userId: string }
  | {
      kind: 'invited';
      email: string;
      /** The single-use link; whoever invited passes it on unless it was e-mailed. */
      link: string;
      /** Whether the invitation was e-mailed; undefined where no mail is sent. */
      mailed: boolean | undefined;
    };

type Invited = { email: string; role: Role; token: string; expiresAt: number; workspaceName: string };

/**
 * Adds an existing account by e-mail, or — when there is none — creates a single-use invitation
 * link (valid 7 days) and e-mails it where mail is sent; accepting it creates the account and
 * membership.
 */
export async function addMember(
  deps: Pick<AdministrationDeps, 'db' | 'clock' | 'linkBase' | 'mailer' | 'onMailFailure'>,
  workspaceId: string,
  input: { email: unknown; role: unknown },
  actor: Actor,
): Promise<AddMemberResult> {
  const { email, key } = parseEmail(input.email);
  const role = parseRole(input.role);
  const now = epochMs(deps.clock);
  const outcome = await deps.db.transaction().execute(async (trx) => {
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
      const inviter = actor === 'system' ? undefined : await findUserById(trx, actor.userId);
      const invited: Invited = { email, role, token, expiresAt, workspaceName };
      return { kind: 'invite' as const, invited, inviter };
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
    return { kind: 'added' as const, userId: user.id };
  });
  if (outcome.kind === 'added') return outcome;
  const { invited, inviter } = outcome;
  const baseUrl = deps.linkBase();
  const link = invitationLink(baseUrl, invited.token);
  const mailed = await mailInvitation(deps, {
    ...invited,
    inviter: inviter && `${inviter.name} (${inviter.email})`,
    baseUrl,
    link,
    validForMs: invitationTtlMs,
  });
  return { kind: 'invited', email: invited.email, link, mailed };
}

/**
 * Withdraws a pending invitation: its link stops working at once. Who may invite to a role may
 * withdraw such an invitation; one that is no longer pending (accepted, expired) is not found.
 */
export async function withdrawInvitation(
  deps: Store,
  workspaceId: string,
  invitationHash: unknown,
  actor: Actor,
): Promise<void> {
  const now = epochMs(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
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

async function currentRole(db: Store['db'], workspaceId: string, userId: string): Promise<Role> {
  const role = await roleOf(db, workspaceId, userId);
  if (role === undefined) throw new AppError('not_found', 'No such member.');
  return role;
}

async function assertOwnerRemains(
  db: Store['db'],
  workspaceId: string,
  from: Role,
  to: Role | undefined,
): Promise<void> {
  if (from === 'owner' && to !== 'owner' && (await countOwners(db, workspaceId)) <= 1) {
    throw new AppError('conflict', 'A workspace needs at least one owner. Make someone else an owner first.');
  }
}

export async function changeRole(
  deps: Store,
  workspaceId: string,
  userId: string,
  newRole: unknown,
  actor: Actor,
): Promise<void> {
  const role = parseRole(newRole);
  const now = epochMs(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
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
 * copies and push channels (their accounts in other workspaces stay). The ended grants' tokens
 * go too, and every instance is told.
 */
export async function removeMember(
  deps: Pick<AdministrationDeps, 'db' | 'clock' | 'endGrants'>,
  workspaceId: string,
  userId: string,
  actor: Actor,
): Promise<void> {
  const now = epochMs(deps.clock);
  const ended = await deps.db.transaction().execute(async (trx) => {
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
  await checkpointAfterPurge(deps.db);
  await deps.endGrants(ended);
}
