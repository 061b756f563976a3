/**
 * A workspace's policy changed by its admins — the whole form, or one app blocked — always
 * through parsePolicy's rules, audited with what it was before. The grants it governs follow at
 * once: looked up again everywhere, and an app's grants ended when it is blocked.
 */
import type { Kysely } from 'kysely';
import { epochMs } from '../lib/clock.ts';
import {
  defaultPolicy,
  type PolicyInput,
  parsePolicy,
  type WorkspacePolicy,
} from '../policy/workspacePolicy.ts';
import { clientNameIn, liveGrantIds, markGrantsRevoked } from '../store/accessGrants.ts';
import { recordAudit } from '../store/audit.ts';
import { reconcileCopies } from '../store/copyMembership.ts';
import type { Database } from '../store/schema.ts';
import { findPolicy, savePolicy } from '../store/workspaces.ts';
import type { AdministrationDeps } from './administrationPorts.ts';
import { type Actor, actorId, requireAdmin } from './workspaceAccess.ts';

/**
 * Inside a transaction: the actor authorised, the policy `change` makes of the current one
 * checked and saved. Returns both.
 */
async function replacePolicy(
  trx: Kysely<Database>,
  workspaceId: string,
  actor: Actor,
  change: (before: WorkspacePolicy) => PolicyInput,
  now: number,
): Promise<{ before: WorkspacePolicy; policy: WorkspacePolicy }> {
  await requireAdmin(trx, workspaceId, actor);
  const before = (await findPolicy(trx, workspaceId)) ?? defaultPolicy;
  const policy = parsePolicy(change(before));
  await savePolicy(trx, workspaceId, policy, now);
  return { before, policy };
}

/** Scopes, levels and blocked clients apply to the grants already given, at once. */
export async function updatePolicy(
  deps: Pick<AdministrationDeps, 'db' | 'clock' | 'forgetGrants'>,
  workspaceId: string,
  input: PolicyInput,
  actor: Actor,
): Promise<WorkspacePolicy> {
  const now = epochMs(deps.clock);
  const { before, policy } = await deps.db.transaction().execute(async (trx) => {
    const replaced = await replacePolicy(trx, workspaceId, actor, () => input, now);
    await recordAudit(trx, {
      workspaceId,
      actorUserId: actorId(actor),
      action: 'policy.updated',
      targetUserId: null,
      // The policy before, so that the log can say what changed.
      detail: { ...replaced.policy, before: { ...replaced.before } },
      at: now,
    });
    return replaced;
  });
  // Busy-only copies follow the setting at once: off, those no app reaches are deleted now.
  if (before.colleagueAvailability !== policy.colleagueAvailability) await reconcileCopies(deps.db, now);
  await deps.forgetGrants(await liveGrantIds(deps.db, { workspaceId }));
  return policy;
}

/** An admin switches an app off in a workspace: it is blocked and every grant to it there ends. */
export async function blockClient(
  deps: Pick<AdministrationDeps, 'db' | 'clock' | 'endGrants'>,
  workspaceId: string,
  clientId: string,
  actor: Actor,
): Promise<number> {
  const now = epochMs(deps.clock);
  const ended = await deps.db.transaction().execute(async (trx) => {
    await replacePolicy(
      trx,
      workspaceId,
      actor,
      (before) => ({ ...before, blockedClients: [...before.blockedClients, clientId] }),
      now,
    );
    const clientName = await clientNameIn(trx, workspaceId, clientId);
    const ids = await markGrantsRevoked(
      trx,
      { workspaceId, clientId },
      'client blocked in the workspace',
      now,
    );
    await recordAudit(trx, {
      workspaceId,
      actorUserId: actorId(actor),
      action: 'client.blocked',
      targetUserId: null,
      detail: { client: clientId, clientName, grantsEnded: ids.length },
      at: now,
    });
    return ids;
  });
  await deps.endGrants(ended);
  return ended.length;
}
