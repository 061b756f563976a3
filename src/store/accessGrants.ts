/** People's consents to clients: which workspace, scopes, calendars and levels; revocation. */
import type { Kysely } from 'kysely';
import type { DetailLevel } from '../domain/detailLevels.ts';
import type { Scope } from '../policy/workspacePolicy.ts';
import { dropUnreachedCopies } from './copyMembership.ts';
import { type AccessGrantsTable, type Database, flag } from './schema.ts';

type Db = Kysely<Database>;

export interface GrantedCalendar {
  calendarId: string;
  detailLevel: DetailLevel;
}

export interface AccessGrant {
  id: string;
  userId: string;
  workspaceId: string;
  clientId: string;
  clientName: string;
  scopes: Scope[];
  privateDetails: boolean;
  calendars: GrantedCalendar[];
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface GrantListing extends AccessGrant {
  /** Calendar names, in the order of `calendars`. */
  calendarNames: string[];
  userEmail: string;
}

const toGrant = (row: AccessGrantsTable, calendars: GrantedCalendar[]): AccessGrant => ({
  id: row.id,
  userId: row.user_id,
  workspaceId: row.workspace_id,
  clientId: row.client_id,
  clientName: row.client_name,
  scopes: row.scopes.split(' ').filter(Boolean) as Scope[],
  privateDetails: flag(row.private_details),
  calendars,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

export async function insertGrant(
  db: Db,
  grant: Omit<AccessGrant, 'lastUsedAt' | 'revokedAt'>,
): Promise<void> {
  await db
    .insertInto('access_grants')
    .values({
      id: grant.id,
      user_id: grant.userId,
      workspace_id: grant.workspaceId,
      client_id: grant.clientId,
      client_name: grant.clientName,
      scopes: grant.scopes.join(' '),
      private_details: grant.privateDetails,
      created_at: grant.createdAt,
      last_used_at: null,
      revoked_at: null,
      revoked_reason: null,
    })
    .execute();
  await insertGrantCalendars(db, grant.id, grant.calendars);
}

async function insertGrantCalendars(db: Db, grantId: string, calendars: readonly GrantedCalendar[]) {
  if (calendars.length === 0) return;
  await db
    .insertInto('access_grant_calendars')
    .values(
      calendars.map((c) => ({ grant_id: grantId, calendar_id: c.calendarId, detail_level: c.detailLevel })),
    )
    .execute();
}

/** A live grant's calendars, levels and private-details choice replaced; false once it is not live. */
export async function replaceGrantCalendars(
  db: Db,
  grantId: string,
  change: { calendars: readonly GrantedCalendar[]; privateDetails: boolean },
): Promise<boolean> {
  const updated = await db
    .updateTable('access_grants')
    .set({ private_details: change.privateDetails })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return false;
  await db.deleteFrom('access_grant_calendars').where('grant_id', '=', grantId).execute();
  await insertGrantCalendars(db, grantId, change.calendars);
  return true;
}

async function calendarsOf(db: Db, grantIds: readonly string[]) {
  if (grantIds.length === 0) return new Map<string, Array<GrantedCalendar & { name: string }>>();
  const rows = await db
    .selectFrom('access_grant_calendars as g')
    .innerJoin('calendars as c', 'c.id', 'g.calendar_id')
    .select(['g.grant_id', 'g.calendar_id', 'g.detail_level', 'c.name'])
    .where('g.grant_id', 'in', grantIds)
    .orderBy('c.name')
    .orderBy('g.calendar_id')
    .execute();
  const byGrant = new Map<string, Array<GrantedCalendar & { name: string }>>();
  for (const row of rows) {
    const list = byGrant.get(row.grant_id) ?? [];
    list.push({ calendarId: row.calendar_id, detailLevel: row.detail_level as DetailLevel, name: row.name });
    byGrant.set(row.grant_id, list);
  }
  return byGrant;
}

/** A grant by id, revoked or not. */
export async function findGrant(db: Db, id: string): Promise<AccessGrant | undefined> {
  // Asked together: a token's grant, read again every few seconds, waits for one round trip, not two.
  const [row, calendarsById] = await Promise.all([
    db.selectFrom('access_grants').selectAll().where('id', '=', id).executeTakeFirst(),
    calendarsOf(db, [id]),
  ]);
  if (row === undefined) return undefined;
  const calendars = calendarsById.get(id) ?? [];
  return toGrant(
    row,
    calendars.map(({ calendarId, detailLevel }) => ({ calendarId, detailLevel })),
  );
}

async function listings(db: Db, rows: Array<AccessGrantsTable & { email: string }>): Promise<GrantListing[]> {
  const calendars = await calendarsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => {
    const list = calendars.get(row.id) ?? [];
    return {
      ...toGrant(
        row,
        list.map(({ calendarId, detailLevel }) => ({ calendarId, detailLevel })),
      ),
      calendarNames: list.map((c) => c.name),
      userEmail: row.email,
    };
  });
}

/** A person's live grants, newest first. */
export async function liveGrantsOfUser(db: Db, userId: string): Promise<GrantListing[]> {
  const rows = await db
    .selectFrom('access_grants as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .selectAll('a')
    .select('u.email')
    .where('a.user_id', '=', userId)
    .where('a.revoked_at', 'is', null)
    .orderBy('a.created_at', 'desc')
    .execute();
  return listings(db, rows);
}

/** What a workspace admin may know of a grant: who, which app, what access, how many calendars. */
export interface GrantMetadata {
  userEmail: string;
  clientId: string;
  clientName: string;
  scopes: Scope[];
  calendarCount: number;
  createdAt: number;
  lastUsedAt: number | null;
}

/** A workspace's live grants as metadata only, newest first: calendar names never leave the store. */
export async function liveGrantMetadataOfWorkspace(db: Db, workspaceId: string): Promise<GrantMetadata[]> {
  const rows = await db
    .selectFrom('access_grants as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .leftJoin('access_grant_calendars as c', 'c.grant_id', 'a.id')
    .select(['a.client_id', 'a.client_name', 'a.scopes', 'a.created_at', 'a.last_used_at', 'u.email'])
    .select((eb) => eb.fn.count<number>('c.calendar_id').as('calendar_count'))
    .where('a.workspace_id', '=', workspaceId)
    .where('a.revoked_at', 'is', null)
    .groupBy([
      'a.id',
      'a.client_id',
      'a.client_name',
      'a.scopes',
      'a.created_at',
      'a.last_used_at',
      'u.email',
    ])
    .orderBy('a.created_at', 'desc')
    .execute();
  return rows.map((r) => ({
    userEmail: r.email,
    clientId: r.client_id,
    clientName: r.client_name,
    scopes: r.scopes.split(' ').filter(Boolean) as Scope[],
    calendarCount: Number(r.calendar_count),
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
  }));
}

/** The newest live grant a person gave a client, if any. */
export async function latestLiveGrant(db: Db, userId: string, clientId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('access_grants')
    .select('id')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  return row?.id;
}

/** The name a client gave itself when last let into the workspace, if it ever was. */
export async function clientNameIn(db: Db, workspaceId: string, clientId: string): Promise<string | null> {
  const row = await db
    .selectFrom('access_grants')
    .select('client_name')
    .where('workspace_id', '=', workspaceId)
    .where('client_id', '=', clientId)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  return row?.client_name ?? null;
}

/** The ids of the live grants a person gave (in one workspace), or of a workspace's. */
export async function liveGrantIds(
  db: Db,
  filter: { userId: string; workspaceId?: string } | { workspaceId: string },
): Promise<string[]> {
  let query = db.selectFrom('access_grants').select('id').where('revoked_at', 'is', null);
  if ('userId' in filter) query = query.where('user_id', '=', filter.userId);
  if (filter.workspaceId !== undefined) query = query.where('workspace_id', '=', filter.workspaceId);
  return (await query.execute()).map((r) => r.id);
}

/** Marks grants revoked (once); returns the ids that changed. */
export async function markGrantsRevoked(
  db: Db,
  /** One grant; or a client's in a workspace (of one person, all but one grant, when given). */
  filter: { id: string } | { workspaceId: string; clientId: string; userId?: string; exceptId?: string },
  reason: string,
  now: number,
): Promise<string[]> {
  let query = db
    .updateTable('access_grants')
    .set({ revoked_at: now, revoked_reason: reason })
    .where('revoked_at', 'is', null);
  if ('id' in filter) query = query.where('id', '=', filter.id);
  else {
    query = query.where('workspace_id', '=', filter.workspaceId).where('client_id', '=', filter.clientId);
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.exceptId !== undefined) query = query.where('id', '!=', filter.exceptId);
  }
  const rows = await query.returning('id').execute();
  // A calendar no live grant reaches any more keeps no copy.
  if (rows.length > 0) await dropUnreachedCopies(db);
  return rows.map((r) => r.id);
}

export async function touchGrant(db: Db, id: string, now: number): Promise<void> {
  await db.updateTable('access_grants').set({ last_used_at: now }).where('id', '=', id).execute();
}
