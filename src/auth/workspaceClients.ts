/**
 * The authorization server's registry of clients, for the apps an admin registers on the admin
 * page (people/workspaceApps.ts). The same rules apply as to dynamic registration (ours in
 * clientRules.ts, then oidc-provider's own schema), and the client is stored exactly where
 * dynamic registration stores it, so the server treats it like any other.
 */
import type Provider from 'oidc-provider';
import { type Adapter, type ClientMetadata, errors } from 'oidc-provider';
import { AppError, invalidField } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import { randomToken } from '../lib/secrets.ts';
import { requiredText } from '../lib/text.ts';
import {
  type ClientKind,
  type ClientRegistration,
  type ClientRegistry,
  clientKinds,
} from '../people/administrationPorts.ts';
import { clientLimits, registrationProblem } from './clientRules.ts';

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

export function clientRegistry(provider: Provider): ClientRegistry {
  const store = clientStore(provider);
  return {
    async register(input, now) {
      const { name, redirectUris, kind } = parseRegistration(input);
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
      await validate(provider, metadata);
      await store.upsert(clientId, metadata, 0);
      return { clientId, name, kind, clientSecret };
    },
    remove: (clientId) => store.destroy(clientId),
    async find(clientId) {
      const client = await provider.Client.find(clientId);
      if (client === undefined) return undefined;
      const kind: ClientKind = client.clientAuthMethod === 'none' ? 'public' : 'confidential';
      return { kind, redirectUris: client.redirectUris ?? [] };
    },
  };
}
