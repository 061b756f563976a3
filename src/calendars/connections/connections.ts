/**
 * Calendar connections (a person's connected provider accounts): connecting (verified against the
 * provider before anything is stored), reading credentials for the adapters (sealed at rest),
 * marking connections that need the person to reconnect, and removing them with everything cached
 * about them.
 */
import type { Kysely } from 'kysely';
import type { ProviderCalendar } from '../../domain/providerFacts.ts';
import { AppError, isAppError } from '../../errors.ts';
import { type Clock, epochMs } from '../../lib/clock.ts';
import { isEmailAddress } from '../../lib/email.ts';
import type { SecretBox } from '../../lib/encryption.ts';
import { newId } from '../../lib/ids.ts';
import { reachesSharedCalendars } from '../../providers/microsoft/oauth.ts';
import type { AccountAccess, CalendarAddress, Credentials } from '../../providers/port.ts';
import { type Providers, providerFor } from '../../providers/registry.ts';
import { liveGrantIds } from '../../store/accessGrants.ts';
import {
  type CalendarRecord,
  type ConnectedAccount,
  calendarsOfAccount,
  deleteAccount,
  findAccount,
  insertAccount,
  sealedCredentialsOf,
  setAccountStatus,
  setCountingCalendars,
  syncCalendars,
  updateCredentials,
} from '../../store/connectedAccounts.ts';
import { reconcileCopies } from '../../store/copyMembership.ts';
import { checkpointAfterPurge } from '../../store/database.ts';
import type { Database } from '../../store/schema.ts';
import { findUserById } from '../../store/users.ts';
import { roleOf } from '../../store/workspaces.ts';
import { withCalendarAddress } from './credentialsInput.ts';

export interface ConnectionDeps {
  db: Kysely<Database>;
  clock: Clock;
  box: SecretBox;
  providers: Providers;
}

export interface Owner {
  userId: string;
  workspaceId: string;
}

const noSuchAccount = () => new AppError('not_found', 'No such connected account.');

/**
 * Lists calendars with credentials not stored yet; adapters may refine them (a discovered home).
 * A CalDAV account without an address is given the default one of its owner.
 */
async function verify(
  deps: ConnectionDeps,
  owner: { userId: string; accountKey: string },
  input: Credentials,
) {
  const user = input.kind === 'caldav' ? await findUserById(deps.db, owner.userId) : undefined;
  const credentials = user === undefined ? input : withCalendarAddress(input, user.email);
  const accountKey = owner.accountKey;
  const provider = providerFor(deps.providers, credentials.kind);
  let latest = credentials;
  let listed: ProviderCalendar[];
  if (provider.connect !== undefined) {
    ({ credentials: latest, calendars: listed } = await provider.connect(credentials));
  } else {
    listed = await provider.listCalendars({
      accountKey,
      credentials,
      saveCredentials: async (next) => {
        latest = next;
      },
    });
  }
  return { listed, sealedFor: (id: string) => deps.box.seal(JSON.stringify(latest), id) };
}

/**
 * Lists the account's calendars with the given credentials first; only when that works are the
 * account, its sealed credentials and its calendars stored, together. A failure stores nothing.
 */
export async function addConnection(
  deps: ConnectionDeps,
  owner: Owner,
  credentials: Credentials,
  label: string,
): Promise<{ account: ConnectedAccount; calendars: CalendarRecord[] }> {
  if ((await roleOf(deps.db, owner.workspaceId, owner.userId)) === undefined) {
    throw new AppError('not_found', 'No such workspace.');
  }
  const id = newId('acc');
  const { listed, sealedFor } = await verify(deps, { userId: owner.userId, accountKey: id }, credentials);
  const now = epochMs(deps.clock);
  const account: ConnectedAccount = {
    id,
    ...owner,
    provider: credentials.kind,
    label,
    status: 'active',
    statusReason: null,
    createdAt: now,
  };
  const calendars = await deps.db.transaction().execute(async (trx) => {
    await insertAccount(trx, account, sealedFor(id));
    return syncCalendars(trx, id, listed, now);
  });
  return { account, calendars };
}

/** The account of this person, or not_found (also for other people's accounts: no oracle). */
export async function ownConnection(
  deps: ConnectionDeps,
  userId: string,
  accountId: string,
): Promise<ConnectedAccount> {
  const account = await findAccount(deps.db, accountId);
  if (account === undefined || account.userId !== userId) throw noSuchAccount();
  return account;
}

async function storedCredentials(deps: ConnectionDeps, account: ConnectedAccount): Promise<Credentials> {
  const sealed = await sealedCredentialsOf(deps.db, account.id);
  if (sealed === undefined) throw noSuchAccount();
  return JSON.parse(deps.box.open(sealed, account.id)) as Credentials;
}

/**
 * The address a CalDAV account invites and answers as, for the account page; undefined for other
 * accounts, and for one connected before addresses were kept whose login is no e-mail address.
 */
export async function calendarAddressOf(
  deps: ConnectionDeps,
  account: ConnectedAccount,
): Promise<CalendarAddress | undefined> {
  if (account.provider !== 'caldav') return undefined;
  let credentials: Credentials;
  try {
    credentials = await storedCredentials(deps, account);
  } catch {
    // Credentials that cannot be opened (another SECRET_KEY) do not take the account page down;
    // the account's reads say what is wrong.
    return undefined;
  }
  if (credentials.kind !== 'caldav') return undefined;
  const { calendarAddress, username } = credentials;
  return calendarAddress ?? (isEmailAddress(username) ? { email: username, from: 'login' } : undefined);
}

/**
 * Whether a Microsoft account was connected before calendars shared with the person were asked
 * for: it lists its own calendars only until the person reconnects it (said on the account page).
 */
export async function missesSharedCalendars(
  deps: ConnectionDeps,
  account: ConnectedAccount,
): Promise<boolean> {
  if (account.provider !== 'microsoft') return false;
  const credentials = await storedCredentials(deps, account).catch(() => undefined);
  return credentials?.kind === 'microsoft' && !reachesSharedCalendars(credentials);
}

/** What an adapter needs to act for the account; refreshed credentials are sealed and stored. */
export async function connectionAccess(
  deps: ConnectionDeps,
  account: ConnectedAccount,
): Promise<AccountAccess> {
  if (account.status === 'reconnect_required') {
    throw new AppError('reconnect_required', 'This account must be reconnected by its owner.', {
      details: { accountId: account.id },
    });
  }
  const access: AccountAccess = {
    accountKey: account.id,
    credentials: await storedCredentials(deps, account),
    saveCredentials: async (next) => {
      await updateCredentials(
        deps.db,
        account.id,
        deps.box.seal(JSON.stringify(next), account.id),
        epochMs(deps.clock),
      );
      // A later call with this access (the copy's sync after a write) starts from the new ones.
      access.credentials = next;
    },
  };
  return access;
}

/**
 * Runs a provider call for the account. A `reconnect_required` answer marks the account, so the
 * rejected credential is not tried again until the person reconnects. `opened`: the access an
 * earlier call of this request opened (its credentials unsealed once, not again).
 */
export async function withConnection<T>(
  deps: ConnectionDeps,
  account: ConnectedAccount,
  call: (access: AccountAccess) => Promise<T>,
  opened?: AccountAccess,
): Promise<T> {
  try {
    return await call(opened ?? (await connectionAccess(deps, account)));
  } catch (error) {
    if (isAppError(error) && error.code === 'reconnect_required' && account.status === 'active') {
      await setAccountStatus(deps.db, account.id, 'reconnect_required', error.message, epochMs(deps.clock));
    }
    throw error;
  }
}

/** Replaces the credentials of an account that needs reconnecting, after they are verified. */
export async function reconnect(
  deps: ConnectionDeps,
  account: ConnectedAccount,
  credentials: Credentials,
): Promise<CalendarRecord[]> {
  if (credentials.kind !== account.provider)
    throw new AppError('invalid_request', 'That is another kind of account.');
  const { listed, sealedFor } = await verify(
    deps,
    { userId: account.userId, accountKey: account.id },
    credentials,
  );
  const now = epochMs(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
    await updateCredentials(trx, account.id, sealedFor(account.id), now);
    return syncCalendars(trx, account.id, listed, now);
  });
}

/** A CalDAV account whose password was rejected: the same server and user with a new password. */
export async function reconnectWithPassword(
  deps: ConnectionDeps,
  account: ConnectedAccount,
  password: string,
): Promise<CalendarRecord[]> {
  const stored = await storedCredentials(deps, account);
  if (stored.kind !== 'caldav')
    throw new AppError('invalid_request', 'This account is not reconnected with a password.');
  return reconnect(deps, account, { ...stored, password });
}

/** Removes the account: its credentials, calendars and their copies go with it (none left in SQLite's log). */
/**
 * The person's choice of which of an account's calendars count toward their availability to
 * colleagues (`counting`: calendar ids of the account); busy-only copies follow it at once.
 */
export async function chooseCountingCalendars(
  deps: ConnectionDeps,
  userId: string,
  accountId: string,
  counting: readonly string[],
): Promise<void> {
  const account = await ownConnection(deps, userId, accountId);
  const ids = new Set((await calendarsOfAccount(deps.db, account.id)).map((c) => c.id));
  if (counting.some((id) => !ids.has(id))) throw new AppError('not_found', 'No such calendar.');
  const now = epochMs(deps.clock);
  await setCountingCalendars(deps.db, account.id, counting, now);
  await reconcileCopies(deps.db, now);
}

/**
 * The person removes one of their accounts. Their grants name its calendars: every instance
 * looks them up again (`forgetGrants`, the authorization side's port).
 */
export async function removeConnection(
  deps: ConnectionDeps & { forgetGrants(grantIds: readonly string[]): Promise<void> },
  userId: string,
  accountId: string,
): Promise<void> {
  const account = await ownConnection(deps, userId, accountId);
  await deleteAccount(deps.db, account.id);
  await checkpointAfterPurge(deps.db);
  await deps.forgetGrants(await liveGrantIds(deps.db, { userId }));
}
