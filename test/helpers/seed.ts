/** Direct inserts for tests that need people and workspaces but not the cost of real hashing. */
import type { Kysely } from 'kysely';
import type { DetailLevel } from '../../src/domain/detailLevels.ts';
import type { CalendarAccess } from '../../src/domain/providerFacts.ts';
import { newId } from '../../src/lib/ids.ts';
import { hashPassword } from '../../src/people/passwords.ts';
import type { Role } from '../../src/policy/roles.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { insertGrant } from '../../src/store/accessGrants.ts';
import { insertAccount, syncCalendars } from '../../src/store/connectedAccounts.ts';
import type { Database } from '../../src/store/schema.ts';
import { insertUser } from '../../src/store/users.ts';
import { insertMembership, insertWorkspace } from '../../src/store/workspaces.ts';

let realHash: Promise<string> | undefined;
export const testPassword = 'correct horse battery staple';

/** A user whose password is `testPassword` (hashed once per process). */
export async function seedUser(
  db: Kysely<Database>,
  email: string,
  name = email.split('@')[0]!,
): Promise<string> {
  realHash ??= hashPassword(testPassword);
  const id = newId('usr');
  await insertUser(db, {
    id,
    email,
    email_key: email.toLowerCase(),
    name,
    password_hash: await realHash,
    created_at: 0,
    updated_at: 0,
  });
  return id;
}

export async function seedWorkspace(
  db: Kysely<Database>,
  name: string,
  members: Array<[userId: string, role: Role]>,
): Promise<string> {
  const id = newId('ws');
  await insertWorkspace(db, { id, name, createdAt: 0 }, defaultPolicy);
  for (const [userId, role] of members) await insertMembership(db, { workspaceId: id, userId, role, now: 0 });
  return id;
}

/**
 * A connected CalDAV account with calendars (no server behind it): what consent pages list;
 * connected at `connectedAt` (epoch ms), else at 0, before any grant.
 */
export async function seedCalendars(
  db: Kysely<Database>,
  owner: { userId: string; workspaceId: string },
  calendars: Array<{ name: string; access?: CalendarAccess }>,
  connectedAt = 0,
): Promise<string[]> {
  const accountId = newId('acc');
  await insertAccount(
    db,
    { id: accountId, ...owner, provider: 'caldav', label: 'dav.example.test', createdAt: connectedAt },
    'sealed-elsewhere',
  );
  const stored = await syncCalendars(
    db,
    accountId,
    calendars.map((c) => ({
      providerCalendarId: `/cal/${encodeURIComponent(c.name)}/`,
      name: c.name,
      primary: false,
      access: c.access ?? 'owner',
    })),
    connectedAt,
  );
  return calendars.map((c) => stored.find((s) => s.name === c.name)!.id);
}

/**
 * A read-only grant of `calendarIds` (each at `detailLevel`, full unless told) to a client "C",
 * made at 0: what a copy needs to exist once reconciled (store/copyMembership.ts).
 */
export async function seedReadGrant(
  db: Kysely<Database>,
  owner: { userId: string; workspaceId: string },
  calendarIds: readonly string[],
  options: { id?: string; detailLevel?: DetailLevel; privateDetails?: boolean } = {},
): Promise<string> {
  const id = options.id ?? newId('grt');
  await insertGrant(db, {
    id,
    ...owner,
    clientId: 'c',
    clientName: 'C',
    scopes: ['calendar:read'],
    privateDetails: options.privateDetails ?? false,
    calendars: calendarIds.map((calendarId) => ({ calendarId, detailLevel: options.detailLevel ?? 'full' })),
    createdAt: 0,
  });
  return id;
}
