/** The provider side of an OAuth connect flow, the same shape for Google and Microsoft. */
import type { OAuthTokens } from './port.ts';

export type OAuthProviderKind = 'google' | 'microsoft';

export interface OAuthConnector {
  kind: OAuthProviderKind;
  /** Where to send the person: PKCE S256 from `codeVerifier`, `state` echoed back. */
  authorizationUrl(request: { state: string; codeVerifier: string }): string;
  /** Trades the code for tokens and the account's e-mail address. */
  exchange(request: { code: string; codeVerifier: string }): Promise<{ tokens: OAuthTokens; email?: string }>;
}

export type Connectors = Partial<Record<OAuthProviderKind, OAuthConnector>>;
