/**
 * Which OAuth clients a workspace admin registered for their workspace. The client itself (its
 * metadata and secret) lives with the authorization server's records; this is the bookkeeping.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface WorkspaceClient {
  clientId: string;
  workspaceId: string;
  name: string;
  createdBy: string | null;
  createdAt: number;
}

export interface WorkspaceClientListing extends WorkspaceClient {
  /** E-mail of the admin who registered it, while that account exists. */
  createdByEmail: string | null;
}

export async function insertWorkspaceClient(db: Db, client: WorkspaceClient): Promise<void> {
  await db
    .insertInto('workspace_clients')
    .values({
      client_id: client.clientId,
      workspace_id: client.workspaceId,
      name: client.name,
      created_by: client.createdBy,
      created_at: client.createdAt,
    })
    .execute();
}

/** A workspace's registered clients, newest first. */
export async function workspaceClientsOf(db: Db, workspaceId: string): Promise<WorkspaceClientListing[]> {
  const rows = await db
    .selectFrom('workspace_clients as c')
    .leftJoin('users as u', 'u.id', 'c.created_by')
    .selectAll('c')
    .select('u.email')
    .where('c.workspace_id', '=', workspaceId)
    .orderBy('c.created_at', 'desc')
    .orderBy('c.client_id')
    .execute();
  return rows.map((r) => ({
    clientId: r.client_id,
    workspaceId: r.workspace_id,
    name: r.name,
    createdBy: r.created_by,
    createdAt: r.created_at,
    createdByEmail: r.email,
  }));
}

/** The workspace an admin registered the client for; undefined for other clients. */
export async function homeWorkspaceOf(db: Db, clientId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('workspace_clients')
    .select('workspace_id')
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row?.workspace_id;
}
