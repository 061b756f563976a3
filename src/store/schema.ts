/**
 * Row types of every table, as Kysely sees them. Times are epoch milliseconds (bigint in
 * PostgreSQL, integer in SQLite); flags are booleans in PostgreSQL and 0/1 in SQLite, so
 * repositories read them through `flag()`; lists are JSON text.
 */
import type { Generated } from 'kysely';

export type Flag = boolean | number;

export interface UsersTable {
  id: string;
  email: string;
  email_key: string;
  name: string;
  password_hash: string;
  created_at: number;
  updated_at: number;
}

export interface SessionsTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  created_at: number;
}

export interface MembershipsTable {
  workspace_id: string;
  user_id: string;
  role: string;
  created_at: number;
}

export interface WorkspacePoliciesTable {
  workspace_id: string;
  allowed_scopes: string;
  max_detail_level: string;
  private_details_allowed: Flag;
  allowed_clients: string | null;
  updated_at: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  workspace_id: string | null;
  actor_user_id: string | null;
  action: string;
  target_user_id: string | null;
  detail: string;
  created_at: number;
}

export interface OneTimeTokensTable {
  token_hash: string;
  purpose: string;
  workspace_id: string | null;
  email: string | null;
  role: string | null;
  created_by: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface SignInFailuresTable {
  id: Generated<number>;
  subject: string;
  at: number;
}

export interface ConnectedAccountsTable {
  id: string;
  user_id: string;
  workspace_id: string;
  provider: string;
  /** What the person recognises the account by: an address, a server, a feed host. */
  label: string;
  /** Sealed with the secret box, bound to the account id. */
  credentials: string;
  status: string;
  status_reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface CalendarsTable {
  id: string;
  account_id: string;
  provider_calendar_id: string;
  name: string;
  time_zone: string | null;
  color: string | null;
  is_primary: Flag;
  access: string;
  created_at: number;
  updated_at: number;
}

export interface OAuthStatesTable {
  state_hash: string;
  user_id: string;
  workspace_id: string;
  provider: string;
  /** Set when the flow reconnects an existing account. */
  account_id: string | null;
  /** Sealed, bound to the state hash. */
  code_verifier: string;
  expires_at: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  workspaces: WorkspacesTable;
  memberships: MembershipsTable;
  workspace_policies: WorkspacePoliciesTable;
  audit_log: AuditLogTable;
  one_time_tokens: OneTimeTokensTable;
  sign_in_failures: SignInFailuresTable;
  connected_accounts: ConnectedAccountsTable;
  calendars: CalendarsTable;
  oauth_states: OAuthStatesTable;
}

export const flag = (value: Flag): boolean => value === true || value === 1;
