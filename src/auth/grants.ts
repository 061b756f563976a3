/**
 * Grants as people see them: what a consent offers, recording it (the authorization server's
 * grant and ours, one id), changing its calendars later, revoking one; and ending grants, for
 * workspace administration too (a member removed, an app blocked).
 * Revocation removes the refresh tokens and codes at once and tells the verifiers' caches (every
 * instance's); so do the changes that end a grant's access without revoking it.
 */
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import { AppError } from '../errors.ts';
import { type Clock, epochMs } from '../lib/clock.ts';
import { tokenHash } from '../lib/secrets.ts';
import { type ConsentChoice, type ConsentOffer, checkConsent, consentOffer } from '../policy/consent.ts';
import { clientPermitted, type Scope, type WorkspacePolicy } from '../policy/workspacePolicy.ts';
import {
  type AccessGrant,
  findGrant,
  insertGrant,
  markGrantsRevoked,
  replaceGrantCalendars,
} from '../store/accessGrants.ts';
import { recordAudit } from '../store/audit.ts';
import {
  accountsOf,
  type CalendarRecord,
  type ConnectedAccount,
  calendarsListedSince,
  calendarsOfAccount,
} from '../store/connectedAccounts.ts';
import { reconcileCopies } from '../store/copyMembership.ts';
import { checkpointAfterPurge } from '../store/database.ts';
import { deleteRecord, deleteRecordsOfGrant } from '../store/oauthRecords.ts';
import type { Database } from '../store/schema.ts';
import { homeWorkspaceOf } from '../store/workspaceClients.ts';
import { findPolicy, findWorkspace, roleOf, type Workspace, workspacesOf } from '../store/workspaces.ts';
import type { Resources } from './resources.ts';

type Db = Kysely<Database>;

export interface GrantsDeps {
  db: Db;
  clock: Clock;
  provider: Provider;
  resources: Resources;
  /** Forgets grants in the bearer verifiers' caches, of this instance and the others. */
  forget(grantIds: readonly string[]): Promise<void>;
}

export interface WorkspaceOffer extends ConsentOffer {
  workspace: Workspace;
  /** The workspace's policy: what a grant from this offer would be read under (the consent preview). */
  policy: WorkspacePolicy;
  accounts: Array<{ account: ConnectedAccount; calendars: CalendarRecord[] }>;
}

/** What the person may grant this client in this workspace; not a member → not_found. */
export async function offerIn(
  db: Db,
  userId: string,
  workspaceId: string,
  clientId: string,
  requestedScopes: Iterable<string>,
): Promise<WorkspaceOffer> {
  const workspace = await findWorkspace(db, workspaceId);
  const policy = workspace && (await roleOf(db, workspaceId, userId)) && (await findPolicy(db, workspaceId));
  if (!workspace || !policy) throw new AppError('not_found', 'No such workspace.');
  if (!(await clientAllowedIn(db, workspaceId, clientId, policy))) {
    throw new AppError('forbidden', 'This workspace does not allow this application.');
  }
  const accounts = await Promise.all(
    (await accountsOf(db, userId, workspaceId)).map(async (account) => ({
      account,
      calendars: await calendarsOfAccount(db, account.id),
    })),
  );
  return {
    workspace,
    policy,
    accounts,
    ...consentOffer(
      policy,
      requestedScopes,
      accounts.flatMap((a) => a.calendars),
    ),
  };
}

/**
 * Whether a client may be let into a workspace: its policy permits it, and a client an admin
 * registered for one workspace is not offered in any other.
 */
async function clientAllowedIn(db: Db, workspaceId: string, clientId: string, policy: WorkspacePolicy) {
  if (!clientPermitted(policy, clientId)) return false;
  const home = await homeWorkspaceOf(db, clientId);
  return home === undefined || home === workspaceId;
}

/** The person's workspaces into which they may let this client. */
export async function workspacesForClient(db: Db, userId: string, clientId: string): Promise<Workspace[]> {
  const eligible: Workspace[] = [];
  for (const workspace of await workspacesOf(db, userId)) {
    const policy = await findPolicy(db, workspace.id);
    if (policy && (await clientAllowedIn(db, workspace.id, clientId, policy))) eligible.push(workspace);
  }
  return eligible;
}

export interface ConsentRequest {
  userId: string;
  workspaceId: string;
  clientId: string;
  clientName: string;
  requestedScopes: string[];
  choice: ConsentChoice;
}

/** Checks the choice against what is offered now and stores the grant; returns its id. */
export async function recordConsent(deps: GrantsDeps, request: ConsentRequest): Promise<string> {
  const offer = await offerIn(
    deps.db,
    request.userId,
    request.workspaceId,
    request.clientId,
    request.requestedScopes,
  );
  const calendars = checkConsent(offer, request.choice);
  const grant = new deps.provider.Grant({ accountId: request.userId, clientId: request.clientId });
  // Scopes the person could not grant count as refused, so that the token is simply narrower.
  for (const resource of Object.values(deps.resources)) {
    const scopes = offer.scopes.filter((s) => (resource.scopes as readonly Scope[]).includes(s));
    if (scopes.length > 0) grant.addResourceScope(resource.url, scopes.join(' '));
    const refused = request.requestedScopes.filter(
      (s) => (resource.scopes as readonly string[]).includes(s) && !scopes.includes(s as Scope),
    );
    if (refused.length > 0) grant.rejectResourceScope(resource.url, refused.join(' '));
  }
  const oidcScopes = request.requestedScopes.filter((s) => s === 'openid' || s === 'offline_access');
  if (oidcScopes.length > 0) grant.addOIDCScope(oidcScopes.join(' '));
  const grantId = await grant.save();
  const now = epochMs(deps.clock);
  let replaced: string[];
  try {
    replaced = await deps.db.transaction().execute(async (trx) => {
      await insertGrant(trx, {
        id: grantId,
        userId: request.userId,
        workspaceId: request.workspaceId,
        clientId: request.clientId,
        clientName: request.clientName,
        scopes: offer.scopes,
        privateDetails: request.choice.privateDetails,
        calendars,
        createdAt: now,
      });
      await recordAudit(trx, {
        workspaceId: request.workspaceId,
        actorUserId: request.userId,
        action: 'grant.created',
        targetUserId: null,
        detail: {
          client: request.clientId,
          clientName: request.clientName,
          scopes: offer.scopes,
          calendars: calendars.length,
          accounts: grantedAccounts(offer, calendars),
        },
        at: now,
      });
      // One grant per person, workspace and app: the new consent takes the place of the earlier ones.
      return markGrantsRevoked(
        trx,
        {
          workspaceId: request.workspaceId,
          clientId: request.clientId,
          userId: request.userId,
          exceptId: grantId,
        },
        'replaced by a new consent',
        now,
      );
    });
  } catch (error) {
    await grant.destroy();
    throw error;
  }
  await endGrants(deps, replaced);
  return grantId;
}

/**
 * Whether the person was asked about every calendar they could share with this grant: one first
 * listed after the consent (an account connected later) and not in the grant asks for consent again.
 */
export async function askedAboutEveryCalendar(db: Db, grant: AccessGrant): Promise<boolean> {
  const granted = new Set(grant.calendars.map((c) => c.calendarId));
  const later = await calendarsListedSince(db, grant.userId, grant.workspaceId, grant.createdAt);
  return later.every((id) => granted.has(id));
}

export interface GrantChoices {
  grant: AccessGrant;
  /** What the person may choose for the grant now (its scopes, the workspace's rules). */
  offer: WorkspaceOffer;
}

/** One of the person's live grants with what they may choose for it; someone else's is not found. */
export async function grantChoices(db: Db, userId: string, grantId: string): Promise<GrantChoices> {
  const grant = await findGrant(db, grantId);
  if (grant === undefined || grant.userId !== userId || grant.revokedAt !== null) {
    throw new AppError('not_found', 'No such connected app.');
  }
  return { grant, offer: await offerIn(db, userId, grant.workspaceId, grant.clientId, grant.scopes) };
}

/**
 * The person changes which calendars a grant reaches and at what level, within the rules of a
 * consent. The grant keeps its id, so the app's current tokens see the change at their next
 * request (every instance is told); copies at a lower level are purged at once.
 */
export async function changeGrant(
  deps: GrantsDeps,
  userId: string,
  grantId: string,
  choice: ConsentChoice,
): Promise<void> {
  const { grant, offer } = await grantChoices(deps.db, userId, grantId);
  const calendars = checkConsent(offer, choice);
  const now = epochMs(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
    const changed = await replaceGrantCalendars(trx, grantId, {
      calendars,
      privateDetails: choice.privateDetails,
    });
    if (!changed) throw new AppError('not_found', 'No such connected app.');
    await recordAudit(trx, {
      workspaceId: grant.workspaceId,
      actorUserId: userId,
      action: 'grant.changed',
      targetUserId: userId,
      detail: {
        client: grant.clientId,
        clientName: grant.clientName,
        calendars: calendars.length,
        accounts: grantedAccounts(offer, calendars),
      },
      at: now,
    });
  });
  await reconcileCopies(deps.db, now);
  await deps.forget([grantId]);
}

/** The calendar accounts a consent reaches, as their person named them: for the audit log. */
function grantedAccounts(offer: WorkspaceOffer, calendars: ReadonlyArray<{ calendarId: string }>) {
  const chosen = new Set(calendars.map((c) => c.calendarId));
  return offer.accounts
    .filter((a) => a.calendars.some((c) => chosen.has(c.id)))
    .map((a) => ({ label: a.account.label, provider: a.account.provider }));
}

/** What carries a grant's access: an ended grant's go at once (access tokens are JWTs, unstored). */
const grantTokenModels = ['AuthorizationCode', 'RefreshToken', 'AccessToken'] as const;

/** Ends grants: their codes and refresh tokens deleted, every instance told (also the admin's port). */
export async function endGrants(deps: GrantsDeps, grantIds: readonly string[]): Promise<void> {
  for (const id of grantIds) {
    await deleteRecordsOfGrant(deps.db, id, grantTokenModels);
    await deleteRecord(deps.db, 'Grant', tokenHash(id));
  }
  // The copies no grant reaches any more were deleted with the revocation: none left in the log.
  if (grantIds.length > 0) await checkpointAfterPurge(deps.db);
  await deps.forget(grantIds);
}

/** A person revokes one of their grants. Someone else's grant is not found, like a missing one. */
export async function revokeGrant(deps: GrantsDeps, userId: string, grantId: string): Promise<void> {
  const grant = await findGrant(deps.db, grantId);
  if (grant === undefined || grant.userId !== userId || grant.revokedAt !== null) {
    throw new AppError('not_found', 'No such connected app.');
  }
  const now = epochMs(deps.clock);
  const ended = await markGrantsRevoked(deps.db, { id: grantId }, 'revoked by the person', now);
  await recordAudit(deps.db, {
    workspaceId: grant.workspaceId,
    actorUserId: userId,
    action: 'grant.revoked',
    targetUserId: userId,
    detail: { client: grant.clientId, clientName: grant.clientName },
    at: now,
  });
  await endGrants(deps, ended);
}
