/**
 * Apps an admin registers for a workspace on the admin page, as an alternative to dynamic
 * registration: checked and stored by the authorization server's registry (the port), recorded
 * as the workspace's and audited here. The secret is returned once and never shown again.
 */
import { epochMs } from '../lib/clock.ts';
import { recordAudit } from '../store/audit.ts';
import { insertWorkspaceClient } from '../store/workspaceClients.ts';
import type { AdministrationDeps, ClientRegistration, RegisteredClient } from './administrationPorts.ts';
import { type Actor, actorId, requireAdmin } from './workspaceAccess.ts';

export async function registerApp(
  deps: Pick<AdministrationDeps, 'db' | 'clock' | 'clients'>,
  workspaceId: string,
  input: ClientRegistration,
  actor: Actor,
): Promise<RegisteredClient> {
  // Authorise before validating, so that non-admins learn nothing from the form's answers.
  await requireAdmin(deps.db, workspaceId, actor);
  const now = epochMs(deps.clock);
  // The registry writes through the shared database handle, which must not be used inside our
  // transaction (SQLite has one connection); so it goes first and is undone if the rest fails.
  const client = await deps.clients.register(input, now);
  try {
    await deps.db.transaction().execute(async (trx) => {
      await requireAdmin(trx, workspaceId, actor);
      await insertWorkspaceClient(trx, {
        clientId: client.clientId,
        workspaceId,
        name: client.name,
        createdBy: actorId(actor),
        createdAt: now,
      });
      await recordAudit(trx, {
        workspaceId,
        actorUserId: actorId(actor),
        action: 'client.registered',
        targetUserId: null,
        detail: { client: client.clientId, name: client.name, kind: client.kind },
        at: now,
      });
    });
  } catch (error) {
    await deps.clients.remove(client.clientId);
    throw error;
  }
  return client;
}
