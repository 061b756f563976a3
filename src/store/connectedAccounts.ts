/** Connected provider accounts and their calendars. Credentials arrive here already sealed. */
import type { Kysely, Selectable } from 'kysely';
import type { CalendarAccess, ProviderCalendar, ProviderKind } from '../domain/providerFacts.ts';
import { newId } from '../lib/ids.ts';
import { withoutStrayControlCharacters } from '../lib/text.ts';
import { inList, q, reused } from './reusedStatements.ts';
import { type CalendarsTable, type ConnectedAccountsTable, type Database, flag } from './schema.ts';

type Db = Kysely<Database>;

export type AccountStatus = 'active' | 'reconnect_required';

export interface ConnectedAccount {
  id: string;
  userId: string;
  workspaceId: string;
  provider: ProviderKind;
  label: string;
  status: AccountStatus;
  statusReason: string | null;
  createdAt: number;
}

export interface CalendarRecord extends ProviderCalendar {
  id: string;
  accountId: string;
}

/** An account as every read sees it: its sealed credentials are read only where they are opened. */
type AccountRow = Omit<ConnectedAccountsTable, 'credentials' | 'updated_at'>;

const toAccount = (row: AccountRow): ConnectedAccount => ({
  id: row.id,
  userId: row.user_id,
  workspaceId: row.workspace_id,
  provider: row.provider as ProviderKind,
  label: row.label,
  status: row.status as AccountStatus,
  statusReason: row.status_reason,
  createdAt: row.created_at,
});

export async function insertAccount(
  db: Db,
  account: Omit<ConnectedAccount, 'status' | 'statusReason'>,
  sealedCredentials: string,
): Promise<void> {
  await db
    .insertInto('connected_accounts')
    .values({
      id: account.id,
      user_id: account.userId,
      workspace_id: account.workspaceId,
      provider: account.provider,
      // An OAuth account's label is the provider's name for it: cleaned like calendar names.
      label: withoutStrayControlCharacters(account.label),
      credentials: sealedCredentials,
      status: 'active',
      status_reason: null,
      created_at: account.createdAt,
      updated_at: account.createdAt,
    })
    .execute();
}

export async function findAccount(db: Db, id: string): Promise<ConnectedAccount | undefined> {
  const row = await db.selectFrom('connected_accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toAccount(row);
}

export async function sealedCredentialsOf(db: Db, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('connected_accounts')
    .select('credentials')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.credentials;
}

/**
 * A person's accounts (in one workspace, or all). Every read asks it: one statement text, all
 * values parameters, prepared once per connection on PostgreSQL (store/reusedStatements.ts).
 */
export async function accountsOf(db: Db, userId: string, workspaceId?: string): Promise<ConnectedAccount[]> {
  const inWorkspace = workspaceId === undefined ? q`` : q`and workspace_id = ${workspaceId}`;
  const { rows } = await db.executeQuery(
    reused(
      db,
      q<AccountRow>`select id, user_id, workspace_id, provider, label, status, status_reason, created_at
        from connected_accounts where user_id = ${userId} ${inWorkspace} order by created_at, id`,
    ),
  );
  return rows.map(toAccount);
}

export async function updateCredentials(db: Db, id: string, sealed: string, now: number): Promise<void> {
  await db
    .updateTable('connected_accounts')
    .set({ credentials: sealed, status: 'active', status_reason: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function setAccountStatus(
  db: Db,
  id: string,
  status: AccountStatus,
  reason: string | null,
  now: number,
): Promise<void> {
  await db
    .updateTable('connected_accounts')
    .set({ status, status_reason: reason, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Removes the account, its credentials and its calendars (cascade). */
export async function deleteAccount(db: Db, id: string): Promise<void> {
  await db.deleteFrom('connected_accounts').where('id', '=', id).execute();
}

const toCalendar = (
  row: Omit<Selectable<CalendarsTable>, 'counts_for_availability' | 'created_at' | 'updated_at'>,
): CalendarRecord => ({
  id: row.id,
  accountId: row.account_id,
  providerCalendarId: row.provider_calendar_id,
  name: row.name,
  ...(row.time_zone === null ? {} : { timeZone: row.time_zone }),
  ...(row.color === null ? {} : { color: row.color }),
  primary: flag(row.is_primary),
  access: row.access as CalendarAccess,
});

export async function calendarsOfAccount(db: Db, accountId: string): Promise<CalendarRecord[]> {
  const rows = await db
    .selectFrom('calendars')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('is_primary', 'desc')
    .orderBy('name')
    .execute();
  return rows.map(toCalendar);
}

/** Which of these calendars count toward their person's availability to colleagues. */
export async function countingCalendars(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('calendars')
    .select(['id', 'counts_for_availability'])
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.filter((r) => flag(r.counts_for_availability)).map((r) => r.id));
}

/** A member's calendars in a workspace that count toward their availability to colleagues. */
export async function countingCalendarsOf(
  db: Db,
  userId: string,
  workspaceId: string,
): Promise<CalendarRecord[]> {
  const rows = await db
    .selectFrom('calendars as c')
    .innerJoin('connected_accounts as a', 'a.id', 'c.account_id')
    .selectAll('c')
    .where('a.user_id', '=', userId)
    .where('a.workspace_id', '=', workspaceId)
    .orderBy('c.id')
    .execute();
  return rows.filter((r) => flag(r.counts_for_availability)).map(toCalendar);
}

/** Sets which of an account's calendars count toward availability (the others stop counting). */
export async function setCountingCalendars(
  db: Db,
  accountId: string,
  counting: readonly string[],
  now: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const counts of [true, false]) {
      let update = trx
        .updateTable('calendars')
        .set({ counts_for_availability: counts, updated_at: now })
        .where('account_id', '=', accountId);
      if (counting.length > 0) update = update.where('id', counts ? 'in' : 'not in', counting);
      else if (counts) continue;
      await update.execute();
    }
  });
}

/** The ids of a person's calendars in a workspace first listed after a moment. */
export async function calendarsListedSince(
  db: Db,
  userId: string,
  workspaceId: string,
  since: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('calendars as c')
    .innerJoin('connected_accounts as a', 'a.id', 'c.account_id')
    .select('c.id')
    .where('a.user_id', '=', userId)
    .where('a.workspace_id', '=', workspaceId)
    .where('c.created_at', '>', since)
    .execute();
  return rows.map((r) => r.id);
}

export async function findCalendars(db: Db, ids: readonly string[]): Promise<CalendarRecord[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.executeQuery(
    reused(
      db,
      q<Parameters<typeof toCalendar>[0]>`select id, account_id, provider_calendar_id, name, time_zone, color,
        is_primary, access from calendars where id ${inList(db, ids, 'text')}`,
    ),
  );
  return rows.map(toCalendar);
}

/**
 * The calendars of `ids` that belong to an account of the person in the workspace, each with its
 * account: one statement, which every read's check of its calendars costs (others' and unknown
 * ids alike find nothing).
 */
export async function ownCalendars(
  db: Db,
  ids: readonly string[],
  userId: string,
  workspaceId: string,
): Promise<{ calendar: CalendarRecord; account: ConnectedAccount }[]> {
  if (ids.length === 0) return [];
  // The account's columns beside the calendar's, which none of them shares: its id is the calendar's account_id.
  const { rows } = await db.executeQuery(
    reused(
      db,
      q<Parameters<typeof toCalendar>[0] & Omit<AccountRow, 'id'>>`select c.id, c.account_id,
        c.provider_calendar_id, c.name, c.time_zone, c.color, c.is_primary, c.access, a.user_id,
        a.workspace_id, a.provider, a.label, a.status, a.status_reason, a.created_at
        from calendars c join connected_accounts a on a.id = c.account_id
        where c.id ${inList(db, ids, 'text')} and a.user_id = ${userId} and a.workspace_id = ${workspaceId}`,
    ),
  );
  return rows.map((row) => ({
    calendar: toCalendar(row),
    account: toAccount({ ...row, id: row.account_id }),
  }));
}

/**
 * Makes the stored calendars of an account match what the provider lists: known calendars keep
 * their ids (updated in place), new ones get fresh opaque ids, vanished ones are removed.
 */
export async function syncCalendars(
  db: Db,
  accountId: string,
  listed: readonly ProviderCalendar[],
  now: number,
): Promise<CalendarRecord[]> {
  const existing = new Map((await calendarsOfAccount(db, accountId)).map((c) => [c.providerCalendarId, c]));
  // What a provider lists is stored cleaned, not refused: a NUL in a calendar's name is the
  // provider's doing, and PostgreSQL cannot store it.
  const clean = withoutStrayControlCharacters;
  for (const listedCalendar of listed) {
    const calendar = { ...listedCalendar, providerCalendarId: clean(listedCalendar.providerCalendarId) };
    const values = {
      name: clean(calendar.name),
      time_zone: calendar.timeZone === undefined ? null : clean(calendar.timeZone),
      color: calendar.color === undefined ? null : clean(calendar.color),
      is_primary: calendar.primary,
      access: calendar.access,
      updated_at: now,
    };
    const known = existing.get(calendar.providerCalendarId);
    if (known) {
      await db.updateTable('calendars').set(values).where('id', '=', known.id).execute();
      existing.delete(calendar.providerCalendarId);
    } else {
      await db
        .insertInto('calendars')
        .values({
          id: newId('cal'),
          account_id: accountId,
          provider_calendar_id: calendar.providerCalendarId,
          created_at: now,
          ...values,
        })
        .execute();
    }
  }
  const gone = [...existing.values()].map((c) => c.id);
  if (gone.length > 0) await db.deleteFrom('calendars').where('id', 'in', gone).execute();
  return calendarsOfAccount(db, accountId);
}

export interface OAuthState {
  userId: string;
  workspaceId: string;
  provider: ProviderKind;
  accountId: string | null;
  sealedVerifier: string;
}

export async function insertOAuthState(
  db: Db,
  stateHash: string,
  state: OAuthState,
  expiresAt: number,
): Promise<void> {
  await db
    .insertInto('oauth_states')
    .values({
      state_hash: stateHash,
      user_id: state.userId,
      workspace_id: state.workspaceId,
      provider: state.provider,
      account_id: state.accountId,
      code_verifier: state.sealedVerifier,
      expires_at: expiresAt,
    })
    .execute();
}

/** Returns and deletes the state (single use); undefined when unknown or expired. */
export async function takeOAuthState(
  db: Db,
  stateHash: string,
  now: number,
): Promise<OAuthState | undefined> {
  const row = await db
    .selectFrom('oauth_states')
    .selectAll()
    .where('state_hash', '=', stateHash)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const deleted = await db.deleteFrom('oauth_states').where('state_hash', '=', stateHash).executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== 1 || row.expires_at <= now) return undefined;
  return {
    userId: row.user_id,
    workspaceId: row.workspace_id,
    provider: row.provider as ProviderKind,
    accountId: row.account_id,
    sealedVerifier: row.code_verifier,
  };
}

export async function deleteExpiredOAuthStates(db: Db, now: number): Promise<void> {
  await db.deleteFrom('oauth_states').where('expires_at', '<=', now).execute();
}
