/**
 * An OAuthClientProvider of the MCP TypeScript SDK for tests: everything kept in memory, every
 * call recorded, and the browser step (`redirectToAuthorization`) handed to the test, which
 * drives the real pages and returns the callback URL the service redirected to.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

export interface TestOAuthProviderOptions {
  redirectUrl: string;
  clientMetadata: OAuthClientMetadata;
  /** An https URL of a Client ID Metadata Document: used instead of registration when the server supports it. */
  clientMetadataUrl?: string;
  /**
   * The person's part: given the authorization URL, returns the URL the browser was sent back
   * to, or undefined when it stayed on a page of the service (an error, say).
   */
  authorize(authorizationUrl: URL): Promise<URL | undefined>;
}

export class TestOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  readonly #options: TestOAuthProviderOptions;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  #state: string | undefined;

  /** Every call to saveClientInformation, in order. */
  readonly savedClients: OAuthClientInformationMixed[] = [];
  /** Every call to saveTokens, in order. */
  readonly savedTokens: OAuthTokens[] = [];
  /** Every authorization URL the SDK sent the browser to. */
  readonly authorizationUrls: URL[] = [];
  /** Every callback URL the browser came back with. */
  readonly callbacks: URL[] = [];
  readonly invalidated: string[] = [];

  constructor(options: TestOAuthProviderOptions) {
    this.#options = options;
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.#options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.#options.clientMetadata;
  }

  state(): string {
    this.#state = randomBytes(16).toString('base64url');
    return this.#state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#client;
  }

  saveClientInformation(clientInformation: OAuthClientInformationMixed): void {
    this.savedClients.push(clientInformation);
    this.#client = clientInformation;
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.savedTokens.push(tokens);
    this.#tokens = tokens;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error('no code verifier saved');
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    this.invalidated.push(scope);
    if (scope === 'all' || scope === 'client') this.#client = undefined;
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
    if (scope === 'all' || scope === 'verifier') this.#verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.#discovery = undefined;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizationUrls.push(authorizationUrl);
    const callback = await this.#options.authorize(authorizationUrl);
    if (callback !== undefined) this.callbacks.push(callback);
  }

  /** The last callback: its code, and that its state is the one this provider sent. */
  get lastCallback(): {
    code: string | null;
    error: string | null;
    iss: string | null;
    stateMatches: boolean;
  } {
    const callback = this.callbacks.at(-1);
    if (callback === undefined) throw new Error('the browser never came back');
    const { searchParams: p } = callback;
    return {
      code: p.get('code'),
      error: p.get('error'),
      iss: p.get('iss'),
      stateMatches: this.#state !== undefined && p.get('state') === this.#state,
    };
  }
}
