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
  default_detail_level: Generated<string>;
  private_details_allowed: Flag;
  /** Whether members see each other's free/busy. */
  colleague_availability: Generated<Flag>;
  allowed_clients: string | null;
  blocked_clients: string | null;
  updated_at: number;
}

export interface WorkspaceRoomsTable {
  workspace_id: string;
  email_key: string;
  email: string;
  name: string;
  capacity: number | null;
  /** JSON list of words. */
  features: string;
  /** `admin`, or the provider it was filled from. */
  source: string;
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
  /** The account a password-reset link is for. */
  user_id: string | null;
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
  /** Whether its busy time counts toward its person's availability to colleagues. */
  counts_for_availability: Generated<Flag>;
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

export interface OAuthRecordsTable {
  model: string;
  id_hash: string;
  /** Sealed JSON, bound to model and id hash. */
  payload: string;
  grant_id: string | null;
  uid_hash: string | null;
  expires_at: number | null;
  consumed_at: number | null;
}

export interface OAuthSigningKeysTable {
  kid: string;
  /** Sealed private JWK, bound to the kid. */
  private_jwk: string;
  created_at: number;
  retired_at: number | null;
}

export interface AccessGrantsTable {
  id: string;
  user_id: string;
  workspace_id: string;
  client_id: string;
  client_name: string;
  /** Space-separated. */
  scopes: string;
  private_details: Flag;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  revoked_reason: string | null;
}

export interface AccessGrantCalendarsTable {
  grant_id: string;
  calendar_id: string;
  detail_level: string;
}

export interface WorkspaceClientsTable {
  client_id: string;
  workspace_id: string;
  name: string;
  created_by: string | null;
  created_at: number;
}

export interface EventWritesTable {
  id: Generated<number>;
  user_id: string;
  workspace_id: string;
  grant_id: string;
  client_id: string;
  calendar_id: string | null;
  event_id: string | null;
  occurrence_id: string | null;
  action: string;
  scope: string | null;
  /** `pending` from before the provider is asked until the outcome is known. */
  outcome: string;
  error_code: string | null;
  created_at: number;
  /** SHA-256 of create_event's idempotency key, when it had one. */
  key_hash: string | null;
  /** "This and following": the new series the split made (`event_id` names the one it ended). */
  new_event_id: string | null;
}

export interface WriteKeysTable {
  user_id: string;
  client_id: string;
  /** SHA-256 of the client's key. */
  key_hash: string;
  /** SHA-256 of the request the key was first used for. */
  request_hash: string;
  calendar_id: string;
  /** The provider-side identity chosen for the event. */
  uid: string;
  /** Set once the provider confirmed the event. */
  provider_event_id: string | null;
  created_at: number;
}

export interface CalendarCopiesTable {
  calendar_id: string;
  /** The highest detail level a live grant gives the calendar: what the copy holds. */
  level: string;
  /** Some live grant reaching the calendar may see private events' details: the copy holds them. */
  private_details: Flag;
  /** The adapter's opaque position after the last complete sync; null → the next sync is full. */
  sync_state: string | null;
  /** Bumped by every full sync: items it did not see are removed when it completes. */
  generation: number;
  horizon_start: number | null;
  horizon_end: number | null;
  /** When the last sync completed; null until the first one has. */
  synced_at: number | null;
  attempted_at: number | null;
  next_sync_at: number;
  /** Failed syncs in a row. */
  failures: number;
  failure_reason: string | null;
  lease_owner: string | null;
  lease_until: number | null;
  items: number;
  skipped: number;
  /** Bumped with every applied batch: what a cached read of the copy is checked against. */
  version: number;
  /** The longest occurrence, in ms: how far before a window an overlapping one may start. */
  longest_ms: number;
  created_at: number;
  /** Items a running sync of several batches has staged so far (none are served until its last). */
  staged_items: Generated<number>;
  /** The copy's number, given by the database: what its word lists are keyed by. */
  copy_key: Generated<number>;
}

export interface CopyItemsTable {
  /** The copy's number (calendar_copies.copy_key). */
  copy_key: number;
  item_key: string;
  version: string;
  generation: number;
  skipped_reason: string | null;
}

/** An occurrence's status as its copied row keeps it: what a read of busy time asks of it. */
export const statusCodes = { confirmed: 0, tentative: 1, cancelled: 2 } as const;

export interface CopyOccurrencesTable {
  id: Generated<number>;
  /** With item_key, its item (copy_items): the copy's number. */
  copy_key: number;
  item_key: string;
  start_ms: number;
  end_ms: number;
  /** The ProviderOccurrence packed (store/packedOccurrence.ts); rows written before: its JSON. */
  data: string | Uint8Array;
  /** Sealed when copied (calendars/eventIds.ts): a read returns them as they are. */
  event_id: Generated<string>;
  occurrence_id: Generated<string>;
  /** 0: start_ms and end_ms are instants; floating (local times read as UTC): 1 elapsed duration, 2 with days. */
  floating: Generated<number>;
  /** Private or secret: its text shows only to grants with private details. */
  is_private: Generated<number>;
  /** Free (its busy-level title is "Free"). */
  is_free: Generated<number>;
  /** 0 confirmed, 1 tentative, 2 cancelled (`statusCodes`: whether it blocks time). */
  status_code: Generated<number>;
}

/** A batch of a sync that has more to come, kept aside until its last batch swaps it in. */
export interface CopyStagedItemsTable {
  copy_key: number;
  item_key: string;
  /** Null: removed at the provider. */
  version: string | null;
  generation: number;
  skipped_reason: string | null;
}

export interface CopyStagedOccurrencesTable {
  copy_key: number;
  item_key: string;
  start_ms: number;
  end_ms: number;
  data: string | Uint8Array;
  /** Its texts folded (store/wordPostings.ts#indexedText): what the word index is made of when the rows move in. */
  title_text: string;
  body_text: string;
  /** Sealed when copied (calendars/eventIds.ts): a read returns them as they are. */
  event_id: Generated<string>;
  occurrence_id: Generated<string>;
  /** 0: start_ms and end_ms are instants; floating (local times read as UTC): 1 elapsed duration, 2 with days. */
  floating: Generated<number>;
  /** Private or secret: its text shows only to grants with private details. */
  is_private: Generated<number>;
  /** Free (its busy-level title is "Free"). */
  is_free: Generated<number>;
  /** 0 confirmed, 1 tentative, 2 cancelled (`statusCodes`: whether it blocks time). */
  status_code: Generated<number>;
}

/** Per copy, ~3 days of starts and slot of words: the lists of the slot's words (store/copyWords.ts). */
export interface CopyWordsTable {
  /** The copy's number (calendar_copies.copy_key). */
  copy_key: number;
  bucket: number;
  /** store/wordPostings.ts#slotOf of the words listed. */
  slot: number;
  /** Each word with its rows' ids, ascending, packed (store/wordPostings.ts#encodeSlot). */
  lists: Uint8Array;
}

/** Per copy and bucket of the word index, its instants' ids and starts (store/copyStarts.ts). */
export interface CopyStartsTable {
  copy_key: number;
  bucket: number;
  /** store/bucketStarts.ts#encodeStarts */
  starts: Uint8Array;
}

/** The words a copy's index lists, one per line between newlines. */
export interface CopyVocabularyTable {
  calendar_id: string;
  words: string;
}

/** An instance's heartbeat: leases of an owner not seen for a while are free. */
export interface SyncInstancesTable {
  owner: string;
  seen_at: number;
}

export interface PushHandshakesTable {
  id: string;
  provider: string;
  until: number;
}

export interface PushChannelsTable {
  provider: string;
  /** Google: the channel id the service chose; Graph: the subscription id. */
  channel_id: string;
  /** No foreign key: the channel outlives its calendar's copy until it is stopped. */
  calendar_id: string;
  account_id: string;
  /** Google's resourceId (needed to stop the channel). */
  resource_id: string | null;
  /** sha256 of the token the notifications carry (lib/secrets.ts#tokenHash). */
  token_hash: string;
  expires_at: number;
  created_at: number;
}

/** Requests of one grant in one window of the budget shared by the instances on one PostgreSQL. */
export interface GrantBudgetWindowsTable {
  grant_id: string;
  /** Epoch milliseconds, a multiple of the window's length. */
  window_start: number;
  requests: number;
}

export interface WorkingHoursTable {
  user_id: string;
  /** Weekdays (`monday`…), comma-separated, in week order. */
  days: string;
  /** HH:MM */
  start_time: string;
  end_time: string;
  time_zone: string;
  updated_at: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  workspaces: WorkspacesTable;
  memberships: MembershipsTable;
  workspace_policies: WorkspacePoliciesTable;
  workspace_rooms: WorkspaceRoomsTable;
  working_hours: WorkingHoursTable;
  audit_log: AuditLogTable;
  one_time_tokens: OneTimeTokensTable;
  sign_in_failures: SignInFailuresTable;
  connected_accounts: ConnectedAccountsTable;
  calendars: CalendarsTable;
  oauth_states: OAuthStatesTable;
  oauth_records: OAuthRecordsTable;
  oauth_signing_keys: OAuthSigningKeysTable;
  access_grants: AccessGrantsTable;
  access_grant_calendars: AccessGrantCalendarsTable;
  workspace_clients: WorkspaceClientsTable;
  event_writes: EventWritesTable;
  write_keys: WriteKeysTable;
  calendar_copies: CalendarCopiesTable;
  copy_items: CopyItemsTable;
  copy_occurrences: CopyOccurrencesTable;
  copy_staged_items: CopyStagedItemsTable;
  copy_staged_occurrences: CopyStagedOccurrencesTable;
  copy_words: CopyWordsTable;
  copy_starts: CopyStartsTable;
  copy_vocabulary: CopyVocabularyTable;
  sync_instances: SyncInstancesTable;
  push_channels: PushChannelsTable;
  push_handshakes: PushHandshakesTable;
  grant_budget_windows: GrantBudgetWindowsTable;
}

export const flag = (value: Flag): boolean => value === true || value === 1;
