/**
 * What the admin page shows of a workspace, read in one call that authorises first: members,
 * pending invitations, the policy, the rooms, the audit log, the apps with access and those
 * registered here.
 */
import { epochMs } from '../lib/clock.ts';
import type { Role } from '../policy/roles.ts';
import { defaultPolicy, type WorkspacePolicy } from '../policy/workspacePolicy.ts';
import { type GrantMetadata, liveGrantMetadataOfWorkspace } from '../store/accessGrants.ts';
import { auditOf } from '../store/audit.ts';
import { type PendingInvitation, pendingInvitations } from '../store/oneTimeTokens.ts';
import { roomsOf, type StoredRoom } from '../store/rooms.ts';
import { workspaceClientsOf } from '../store/workspaceClients.ts';
import { findPolicy, findWorkspace, listMembers, type Workspace } from '../store/workspaces.ts';
import type { AdministrationDeps, ClientKind } from './administrationPorts.ts';
import { type Actor, requireAdmin } from './workspaceAccess.ts';

type OverviewDeps = Pick<AdministrationDeps, 'db' | 'clock' | 'clients'>;

export interface WorkspaceOverview {
  workspace: Workspace;
  role: Role;
  members: Awaited<ReturnType<typeof listMembers>>;
  invitations: PendingInvitation[];
  policy: WorkspacePolicy;
  rooms: StoredRoom[];
  audit: Awaited<ReturnType<typeof auditOf>>;
  /** The live grants here, as metadata only (calendar names never leave the store). */
  grants: GrantMetadata[];
  /** The apps registered for this workspace. */
  clients: WorkspaceClientView[];
}

export async function workspaceOverview(
  deps: OverviewDeps,
  workspaceId: string,
  actor: Actor,
): Promise<WorkspaceOverview> {
  const role = await requireAdmin(deps.db, workspaceId, actor);
  const [workspace, members, invitations, policy, rooms, audit, grants, clients] = await Promise.all([
    findWorkspace(deps.db, workspaceId),
    listMembers(deps.db, workspaceId),
    pendingInvitations(deps.db, workspaceId, epochMs(deps.clock)),
    findPolicy(deps.db, workspaceId),
    roomsOf(deps.db, workspaceId),
    auditOf(deps.db, workspaceId),
    liveGrantMetadataOfWorkspace(deps.db, workspaceId),
    appsOf(deps, workspaceId),
  ]);
  return {
    workspace: workspace!,
    role,
    members,
    invitations,
    policy: policy ?? defaultPolicy,
    rooms,
    audit,
    grants,
    clients,
  };
}

export interface WorkspaceClientView {
  clientId: string;
  name: string;
  /** Undefined once the server no longer holds the client. */
  kind: ClientKind | undefined;
  redirectUris: readonly string[];
  createdAt: number;
  createdByEmail: string | null;
}

/** The workspace's registered apps with what the server knows of them. */
async function appsOf(deps: OverviewDeps, workspaceId: string): Promise<WorkspaceClientView[]> {
  const listed = await workspaceClientsOf(deps.db, workspaceId);
  return Promise.all(
    listed.map(async (c) => {
      const held = await deps.clients.find(c.clientId);
      return {
        clientId: c.clientId,
        name: c.name,
        kind: held?.kind,
        redirectUris: held?.redirectUris ?? [],
        createdAt: c.createdAt,
        createdByEmail: c.createdByEmail,
      };
    }),
  );
}
