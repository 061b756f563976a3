/**
 * The OAuth connect flow for Google and Microsoft accounts: who started it and its PKCE
 * verifier (sealed) are kept under a random, single-use state; the callback only completes
 * for the same person, then connects or reconnects the account.
 */
import { AppError } from '../../errors.ts';
import { epochMs } from '../../lib/clock.ts';
import { randomToken, tokenHash } from '../../lib/secrets.ts';
import type { Connectors, OAuthConnector, OAuthProviderKind } from '../../providers/connectors.ts';
import { insertOAuthState, takeOAuthState } from '../../store/connectedAccounts.ts';
import { roleOf } from '../../store/workspaces.ts';
import { addConnection, type ConnectionDeps, type Owner, ownConnection, reconnect } from './connections.ts';
import { connectionLabel, providerNames } from './credentialsInput.ts';

export const oauthStateTtlMs = 10 * 60 * 1000;

export type FlowDeps = ConnectionDeps & { connectors: Connectors };

function connectorFor(deps: FlowDeps, kind: OAuthProviderKind): OAuthConnector {
  const connector = deps.connectors[kind];
  if (connector === undefined)
    throw new AppError('not_found', `Connecting ${providerNames[kind]} is not configured here.`);
  return connector;
}

/** Returns where to send the person. `accountId` set: the flow reconnects that account. */
export async function startConnectFlow(
  deps: FlowDeps,
  kind: OAuthProviderKind,
  owner: Owner,
  accountId: string | null,
): Promise<string> {
  const connector = connectorFor(deps, kind);
  if ((await roleOf(deps.db, owner.workspaceId, owner.userId)) === undefined) {
    throw new AppError('not_found', 'No such workspace.');
  }
  const state = randomToken();
  const codeVerifier = randomToken();
  const hash = tokenHash(state);
  await insertOAuthState(
    deps.db,
    hash,
    { ...owner, provider: kind, accountId, sealedVerifier: deps.box.seal(codeVerifier, hash) },
    epochMs(deps.clock) + oauthStateTtlMs,
  );
  return connector.authorizationUrl({ state, codeVerifier });
}

export type FlowOutcome = 'connected' | 'reconnected' | 'cancelled';

/** Completes the flow from the provider's callback parameters, for the person now signed in. */
export async function finishConnectFlow(
  deps: FlowDeps,
  kind: OAuthProviderKind,
  userId: string,
  callback: { state?: string | undefined; code?: string | undefined; error?: string | undefined },
): Promise<FlowOutcome> {
  const { state, code, error } = callback;
  const hash = typeof state === 'string' ? tokenHash(state) : undefined;
  const flow = hash === undefined ? undefined : await takeOAuthState(deps.db, hash, epochMs(deps.clock));
  // A flow someone else started (or an old one) must not attach an account to this person.
  if (flow === undefined || hash === undefined || flow.userId !== userId || flow.provider !== kind) {
    throw new AppError(
      'invalid_request',
      'This connection attempt has expired or was not started here. Start again.',
    );
  }
  if (error !== undefined) return 'cancelled';
  if (typeof code !== 'string' || code === '') {
    throw new AppError('invalid_request', 'The provider sent no authorization code.');
  }
  const codeVerifier = deps.box.open(flow.sealedVerifier, hash);
  const { tokens, email } = await connectorFor(deps, kind).exchange({ code, codeVerifier });
  const credentials = { kind, ...tokens };
  if (flow.accountId !== null) {
    await reconnect(deps, await ownConnection(deps, userId, flow.accountId), credentials);
    return 'reconnected';
  }
  await addConnection(
    deps,
    { userId, workspaceId: flow.workspaceId },
    credentials,
    connectionLabel(credentials, email),
  );
  return 'connected';
}
