/** Where the Microsoft identity platform and Graph live, and who we are to them. */

export interface MicrosoftConfig {
  clientId: string;
  clientSecret: string;
  /** `common` (work and personal accounts), `organizations`, `consumers` or a tenant id. */
  tenant: string;
  authorizationUrl: string;
  tokenUrl: string;
  /** Graph v1.0 root, without a trailing slash. */
  apiBaseUrl: string;
  redirectUri: string;
}

export type MicrosoftSettings = Pick<MicrosoftConfig, 'clientId' | 'clientSecret' | 'redirectUri'> &
  Partial<MicrosoftConfig>;

/** The real endpoints for `tenant` unless overridden (tests point them at a fake). */
export function microsoftConfig(settings: MicrosoftSettings): MicrosoftConfig {
  const tenant = settings.tenant ?? 'common';
  const login = `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/oauth2/v2.0`;
  return {
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    redirectUri: settings.redirectUri,
    tenant,
    authorizationUrl: settings.authorizationUrl ?? `${login}/authorize`,
    tokenUrl: settings.tokenUrl ?? `${login}/token`,
    apiBaseUrl: (settings.apiBaseUrl ?? 'https://graph.microsoft.com/v1.0').replace(/\/+$/, ''),
  };
}

export const providerName = 'Microsoft Graph';
