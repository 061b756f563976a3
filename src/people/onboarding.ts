/**
 * Single-use links that bring people in: the first owner of a fresh install (no default password
 * ever exists) and invitations to a workspace for addresses without an account.
 */
import type { Kysely } from 'kysely';
import { AppError } from '../errors.ts';
import { type Clock, epochMs } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { randomToken, tokenHash } from '../lib/secrets.ts';
import { requiredText } from '../lib/text.ts';
import { defaultPolicy } from '../policy/workspacePolicy.ts';
import { recordAudit } from '../store/audit.ts';
import {
  consumeToken,
  findUsableToken,
  insertOneTimeToken,
  type OneTimeToken,
  revokeUnusedTokens,
} from '../store/oneTimeTokens.ts';
import type { Database } from '../store/schema.ts';
import { countUsers } from '../store/users.ts';
import { findWorkspace, insertMembership, insertWorkspace } from '../store/workspaces.ts';
import { insertNewUser, prepareUser } from './accounts.ts';

type Db = Kysely<Database>;

export const firstRunTtlMs = 24 * 3_600_000;

/** The one answer for a single-use link that cannot be used, whatever the reason. */
export const linkInvalid = () => new AppError('not_found', 'This link is invalid, expired or already used.');

/** On an install with no people yet: a fresh set-up token (older ones stop working). */
export async function issueFirstRunToken(db: Db, clock: Clock): Promise<string | undefined> {
  const now = epochMs(clock);
  return db.transaction().execute(async (trx) => {
    if ((await countUsers(trx)) > 0) return undefined;
    await revokeUnusedTokens(trx, 'first_owner', now);
    const token = randomToken();
    const entry: OneTimeToken = {
      tokenHash: tokenHash(token),
      purpose: 'first_owner',
      workspaceId: null,
      email: null,
      role: null,
      createdBy: null,
      expiresAt: now + firstRunTtlMs,
    };
    await insertOneTimeToken(trx, entry, now);
    return token;
  });
}

export async function checkFirstRunToken(db: Db, clock: Clock, token: unknown): Promise<void> {
  if (
    typeof token !== 'string' ||
    (await findUsableToken(db, tokenHash(token), 'first_owner', epochMs(clock))) === undefined
  ) {
    throw linkInvalid();
  }
}

/** Creates the first owner and their workspace, using up the token; all or nothing. */
export async function completeFirstRun(
  db: Db,
  clock: Clock,
  token: unknown,
  input: { email: unknown; password: unknown; name: unknown; workspaceName: unknown },
): Promise<{ userId: string; workspaceId: string }> {
  await checkFirstRunToken(db, clock, token);
  const workspaceName = requiredText(input.workspaceName, 'workspaceName', 'a workspace name');
  const now = epochMs(clock);
  const row = await prepareUser(input, now);
  return db.transaction().execute(async (trx) => {
    if ((await countUsers(trx)) > 0 || !(await consumeToken(trx, tokenHash(token as string), now))) {
      throw linkInvalid();
    }
    const user = await insertNewUser(trx, row);
    const workspace = { id: newId('ws'), name: workspaceName, createdAt: now };
    await insertWorkspace(trx, workspace, defaultPolicy);
    await insertMembership(trx, { workspaceId: workspace.id, userId: user.id, role: 'owner', now });
    await recordAudit(trx, {
      workspaceId: workspace.id,
      actorUserId: user.id,
      action: 'workspace.created',
      targetUserId: user.id,
      detail: { name: workspaceName },
      at: now,
    });
    return { userId: user.id, workspaceId: workspace.id };
  });
}

export interface Invitation {
  email: string;
  workspaceName: string;
  role: string;
}

export async function findInvitation(db: Db, clock: Clock, token: unknown): Promise<Invitation> {
  if (typeof token !== 'string') throw linkInvalid();
  const entry = await findUsableToken(db, tokenHash(token), 'invitation', epochMs(clock));
  const workspace = entry?.workspaceId ? await findWorkspace(db, entry.workspaceId) : undefined;
  if (entry === undefined || workspace === undefined) throw linkInvalid();
  return { email: entry.email!, workspaceName: workspace.name, role: entry.role! };
}

/** Creates the invited person's account and membership, using up the invitation. */
export async function acceptInvitation(
  db: Db,
  clock: Clock,
  token: unknown,
  input: { password: unknown; name: unknown },
): Promise<{ userId: string; workspaceId: string }> {
  const invitation = await findInvitation(db, clock, token);
  const now = epochMs(clock);
  const row = await prepareUser({ email: invitation.email, password: input.password, name: input.name }, now);
  const hash = tokenHash(token as string);
  return db.transaction().execute(async (trx) => {
    const entry = await findUsableToken(trx, hash, 'invitation', now);
    if (entry === undefined || !(await consumeToken(trx, hash, now))) throw linkInvalid();
    const user = await insertNewUser(trx, row);
    const workspaceId = entry.workspaceId!;
    await insertMembership(trx, { workspaceId, userId: user.id, role: entry.role!, now });
    await recordAudit(trx, {
      workspaceId,
      actorUserId: user.id,
      action: 'member.added',
      targetUserId: user.id,
      detail: { role: entry.role, via: 'invitation' },
      at: now,
    });
    return { userId: user.id, workspaceId };
  });
}
