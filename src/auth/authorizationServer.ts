/**
 * The OAuth 2.1 authorization server: oidc-provider configured for this service. PKCE S256 for
 * everyone, exact redirect URIs, resource indicators bound to `/mcp` or `/v1`, short-lived JWT
 * access tokens naming their environment and grant, rotating refresh tokens (reuse ends the
 * grant), DCR and Client ID Metadata Documents. People sign in and consent on our own pages;
 * the authorization session is valid only while the person's site session is. When the signing
 * keys change, oidc-provider is built again on the new set (all its state lives in the database).
 */
import { hkdfSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import Provider, {
  type Configuration,
  errors,
  interactionPolicy,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import type { Config } from '../config/config.ts';
import type { Clock } from '../lib/clock.ts';
import type { SecretBox } from '../lib/encryption.ts';
import { clientPermitted, isScope, scopes } from '../policy/workspacePolicy.ts';
import { findGrant, latestLiveGrant } from '../store/accessGrants.ts';
import type { Database } from '../store/schema.ts';
import { findUserById } from '../store/users.ts';
import { findPolicy } from '../store/workspaces.ts';
import { registrationProblem } from './clientRules.ts';
import { askedAboutEveryCalendar } from './grants.ts';
import { issuerFor, protectedResources, type Resources, resourceByUrl } from './resources.ts';
import { type PrivateJwk, signingAlgorithm } from './signingKeys.ts';
import { storageAdapter } from './storage.ts';

export const accessTokenTtlSeconds = 600;

export interface AuthorizationServerDeps {
  config: Config;
  db: Kysely<Database>;
  clock: Clock;
  secretKey: Buffer;
  box: SecretBox;
  signingKeys: readonly PrivateJwk[];
  onGrantEnded(grantId: string): Promise<void>;
  /** Told of each access token issued (JWTs are not stored, so this is where they are counted). */
  onTokenIssued?(): void;
  /** The site's own pages, which the authorization server relies on but does not render. */
  site: SitePages;
  /** Outbound requests (Client ID Metadata Documents, clients' jwks_uri): lib/guardedFetch.ts. */
  fetch: typeof fetch;
}

export interface SitePages {
  /** The person signed in to the site, from the request's cookies (read by name). */
  signedInUser(cookie: (name: string) => string | undefined): Promise<string | undefined>;
  /** The page for a request that failed before its redirect URI was verified. */
  errorPage(code: string, description: string | undefined): string;
}

export interface AuthorizationServer {
  /** The current oidc-provider: read it at each use, as `useKeys` replaces it. */
  readonly provider: Provider;
  /** Hands a request to the current oidc-provider. */
  handle(request: IncomingMessage, response: ServerResponse): void;
  issuer: string;
  resources: Resources;
  /** Signs with the first of these keys from now on; the others still verify. */
  useKeys(keys: readonly PrivateJwk[]): void;
}

/** Interaction pages live at `/authorize/{uid}`; see web/pages/authorize.ts. */
export const interactionPath = (uid: string): string => `/authorize/${uid}`;

export function createAuthorizationServer(deps: AuthorizationServerDeps): AuthorizationServer {
  const { config, db } = deps;
  const issuer = issuerFor(config.baseUrl);
  const resources = protectedResources(config.baseUrl);
  const secure = config.baseUrl.startsWith('https:');
  const cookieKey = Buffer.from(
    hkdfSync('sha256', deps.secretKey, Buffer.alloc(0), 'calendar-access oauth cookies v1', 32),
  ).toString('base64url');

  /** The person signed in to the site in this browser, if any. */
  const siteUser = (ctx: KoaContextWithOIDC): Promise<string | undefined> =>
    deps.site.signedInUser((name) => ctx.cookies.get(name));

  const policy = interactionPolicy.base();
  policy.get('login')?.checks.add(
    new interactionPolicy.Check('site_session', 'the person must be signed in to this site', async (ctx) => {
      const user = await siteUser(ctx);
      return user !== undefined && user === ctx.oidc.session?.accountId
        ? interactionPolicy.Check.NO_NEED_TO_PROMPT
        : interactionPolicy.Check.REQUEST_PROMPT;
    }),
  );

  const configuration: Configuration = {
    adapter: storageAdapter({ db, box: deps.box, onGrantEnded: deps.onGrantEnded }),
    clients: [],
    cookies: {
      keys: [cookieKey],
      long: { httpOnly: true, sameSite: 'lax', secure, signed: true },
      short: { httpOnly: true, sameSite: 'lax', secure, signed: true },
    },
    async findAccount(_ctx, sub) {
      const user = await findUserById(db, sub);
      return user && { accountId: user.id, claims: async () => ({ sub: user.id }) };
    },
    // Calendar scopes belong to the resources (getResourceServerInfo), not to OpenID Connect.
    scopes: ['openid', 'offline_access'],
    discovery: { scopes_supported: [...scopes, 'offline_access'] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    allowOmittingSingleRegisteredRedirectUri: false,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: signingAlgorithm,
      token_endpoint_auth_method: 'client_secret_basic',
    },
    enabledJWA: {
      idTokenSigningAlgValues: [signingAlgorithm],
    },
    clientBasedCORS(_ctx, origin, client) {
      // Browser-based public clients may call the token and revocation endpoints from their own origin.
      return (
        client.clientAuthMethod === 'none' &&
        (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin)
      );
    },
    extraClientMetadata: {
      properties: ['software_id', 'software_version'],
      validator(_ctx, key, value, client) {
        if (value !== undefined && (typeof value !== 'string' || value.length > 200)) {
          throw new errors.InvalidClientMetadata(`${key} must be a string of at most 200 characters`);
        }
        const problem = registrationProblem(client);
        if (problem !== undefined) throw new errors.InvalidClientMetadata(problem);
        // MCP clients register with the resource's scopes (RFC 9728 scopes_supported). Those are
        // resource scopes, limited per grant at consent; the client's own `scope` keeps only the
        // OpenID ones oidc-provider checks it against.
        if (typeof client.scope === 'string') {
          const kept = client.scope.split(' ').filter((s) => s === 'openid' || s === 'offline_access');
          if (kept.length > 0) client.scope = kept.join(' ');
          else delete client.scope;
        }
      },
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
      registration: { enabled: true, initialAccessToken: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: { min: 60, max: 3600 },
      },
      resourceIndicators: {
        enabled: true,
        // Clients should name the resource; one that does not gets the MCP audience, never both.
        defaultResource: () => resources.mcp.url,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, indicator) {
          const resource = resourceByUrl(resources, indicator);
          if (resource === undefined) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
          return {
            scope: resource.scopes.join(' '),
            audience: resource.url,
            accessTokenTTL: accessTokenTtlSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: signingAlgorithm } },
          };
        },
      },
    },
    interactions: {
      policy,
      url: (_ctx, interaction) => interactionPath(interaction.uid),
    },
    ttl: {
      AccessToken: accessTokenTtlSeconds,
      ClientCredentials: accessTokenTtlSeconds,
      AuthorizationCode: 60,
      Interaction: 3600,
      Session: 24 * 3600,
      RefreshToken: 30 * 24 * 3600,
      Grant: 365 * 24 * 3600,
    },
    rotateRefreshToken: true,
    revokeGrantPolicy: () => true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    async loadExistingGrant(ctx) {
      const accountId = ctx.oidc.session?.accountId;
      const fromConsent = ctx.oidc.result?.consent?.grantId;
      const grantId =
        fromConsent ??
        (accountId === undefined
          ? undefined
          : await latestLiveGrant(db, accountId, ctx.oidc.client!.clientId));
      if (grantId === undefined) return undefined;
      if (fromConsent === undefined) {
        // A grant is reused only while its workspace still lets this client in, and only when it
        // holds everything asked now: what was refused or not allowed before is asked again (the
        // workspace may allow it since), never silently left out; so is a calendar connected since.
        const grant = await findGrant(db, grantId);
        const workspacePolicy = grant && (await findPolicy(db, grant.workspaceId));
        if (!workspacePolicy || !clientPermitted(workspacePolicy, grant.clientId)) return undefined;
        const asked = String(ctx.oidc.params?.scope ?? '')
          .split(' ')
          .filter(isScope);
        if (!asked.every((scope) => grant.scopes.includes(scope))) return undefined;
        if (!(await askedAboutEveryCalendar(db, grant))) return undefined;
      }
      return ctx.oidc.provider.Grant.find(grantId);
    },
    extraTokenClaims(_ctx, token) {
      const grantId = 'grantId' in token ? token.grantId : undefined;
      return { env: config.environment, ...(grantId ? { gid: grantId } : {}) };
    },
    async renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = deps.site.errorPage(out.error, out.error_description);
    },
    // oidc-provider's own dispatcher checks addresses only after connecting; ours replaces it.
    fetch: deps.fetch as NonNullable<Configuration['fetch']>,
  };

  const build = (keys: readonly PrivateJwk[]) => {
    const provider = new Provider(issuer, { ...configuration, jwks: { keys: [...keys] } });
    // The mount (auth/routes.ts) sets Host and X-Forwarded-Proto from BASE_URL on every request.
    provider.proxy = true;
    if (deps.onTokenIssued !== undefined) provider.on('access_token.issued', deps.onTokenIssued);
    return { provider, callback: provider.callback() };
  };
  let current = build(deps.signingKeys);
  return {
    get provider() {
      return current.provider;
    },
    handle: (request, response) => current.callback(request, response),
    issuer,
    resources,
    useKeys(keys) {
      current = build(keys);
    },
  };
}
