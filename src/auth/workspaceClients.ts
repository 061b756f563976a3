/**
 * OAuth clients a workspace admin registers on the admin page, as an alternative to dynamic
 * registration. The same rules apply (ours in clientRules.ts, then oidc-provider's own schema),
 * and the client is stored exactly where dynamic registration stores it, so the authorization
 * server treats it like any other. The secret is returned once and never shown again.
 */
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import { type Adapter, type ClientMetadata, errors } from 'oidc-provider';
import { AppError, invalidField } from '../errors.ts';
import { type Clock, epochMs } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { randomToken } from '../lib/secrets.ts';
import { requiredText } from '../lib/text.ts';
import { requireAdmin } from '../people/workspaces.ts';
import { recordAudit } from '../store/audit.ts';
import type { Database } from '../store/schema.ts';
import { insertWorkspaceClient, workspaceClientsOf } from '../store/workspaceClients.ts';
import { clientLimits, registrationProblem } from './clientRules.ts';

export interface WorkspaceClientsDeps {
  db: Kysely<Database>;
  clock: Clock;
  provider: Provider;
}

export const clientKinds = ['public', 'confidential'] as const;
export type ClientKind = (typeof clientKinds)[number];

export interface ClientRegistration {
  name: unknown;
  /** One URI per line, as typed into the form. */
  redirectUris: unknown;
  kind: unknown;
}

export interface RegisteredClient {
  clientId: string;
  name: string;
  kind: ClientKind;
  /** Only for confidential clients, and only in the answer to the registration. */
  clientSecret: string | undefined;
}

/** oidc-provider persists clients through its `Client` model's adapter (not in its type definitions). */
const clientStore = (provider: Provider): Adapter =>
  (provider.Client as unknown as { adapter: Adapter }).adapter;

function parseRegistration(input: ClientRegistration) {
  const name = requiredText(input.name, 'name', 'a name for the app', clientLimits.nameLength);
  const redirectUris = (typeof input.redirectUris === 'string' ? input.redirectUris : '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  if (redirectUris.length === 0) throw invalidField('redirectUris', 'Enter at least one redirect URI.');
  const kind = input.kind;
  if (typeof kind !== 'string' || !(clientKinds as readonly string[]).includes(kind)) {
    throw invalidField('type', 'Choose whether the app is public or confidential.');
  }
  return { name, redirectUris, kind: kind as ClientKind };
}

/** Validates like dynamic registration does; problems become form errors. */
async function validate(provider: Provider, metadata: ClientMetadata): Promise<void> {
  const problem = registrationProblem(metadata);
  if (problem !== undefined) throw invalidField('redirectUris', problem);
  try {
    await provider.Client.validate(metadata);
  } catch (error) {
    if (error instanceof errors.InvalidClientMetadata || error instanceof errors.InvalidRedirectUri) {
      throw new AppError('invalid_request', `The app cannot be registered: ${error.error_description}.`);
    }
    throw error;
  }
}

export async function registerWorkspaceClient(
  deps: WorkspaceClientsDeps,
  workspaceId: string,
  input: ClientRegistration,
  actor: { userId: string },
): Promise<RegisteredClient> {
  // Authorise before validating, so that non-admins learn nothing from the form's answers.
  await requireAdmin(deps.db, workspaceId, actor);
  const { name, redirectUris, kind } = parseRegistration(input);
  const now = epochMs(deps.clock);
  const clientId = newId('cli');
  const clientSecret = kind === 'confidential' ? randomToken() : undefined;
  const metadata: ClientMetadata = {
    client_id: clientId,
    client_id_issued_at: Math.floor(now / 1000),
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...(clientSecret === undefined
      ? { token_endpoint_auth_method: 'none' }
      : { token_endpoint_auth_method: 'client_secret_basic', client_secret: clientSecret }),
  };
  await validate(deps.provider, metadata);

  // The adapter writes through the shared database handle, which must not be used inside our
  // transaction (SQLite has one connection); so it goes first and is undone if the rest fails.
  const store = clientStore(deps.provider);
  await store.upsert(clientId, metadata, 0);
  try {
    await deps.db.transaction().execute(async (trx) => {
      await requireAdmin(trx, workspaceId, actor);
      await insertWorkspaceClient(trx, {
        clientId,
        workspaceId,
        name,
        createdBy: actor.userId,
        createdAt: now,
      });
      await recordAudit(trx, {
        workspaceId,
        actorUserId: actor.userId,
        action: 'client.registered',
        targetUserId: null,
        detail: { client: clientId, name, kind },
        at: now,
      });
    });
  } catch (error) {
    await store.destroy(clientId);
    throw error;
  }
  return { clientId, name, kind, clientSecret };
}

export interface WorkspaceClientView {
  clientId: string;
  name: string;
  kind: ClientKind | undefined;
  redirectUris: readonly string[];
  createdAt: number;
  createdByEmail: string | null;
}

/** The workspace's registered clients with what the server knows of them. The caller authorises. */
export async function workspaceClients(
  deps: WorkspaceClientsDeps,
  workspaceId: string,
): Promise<WorkspaceClientView[]> {
  const listed = await workspaceClientsOf(deps.db, workspaceId);
  return Promise.all(
    listed.map(async (c) => {
      const client = await deps.provider.Client.find(c.clientId);
      const kind: ClientKind | undefined =
        client === undefined ? undefined : client.clientAuthMethod === 'none' ? 'public' : 'confidential';
      return {
        clientId: c.clientId,
        name: c.name,
        kind,
        redirectUris: client?.redirectUris ?? [],
        createdAt: c.createdAt,
        createdByEmail: c.createdByEmail,
      };
    }),
  );
}
