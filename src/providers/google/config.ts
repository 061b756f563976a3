/** Where the Google adapter talks to: the real endpoints by default, a fake server in tests. */

export interface GoogleConfig {
  clientId: string;
  clientSecret: string;
  authorizationUrl: string;
  tokenUrl: string;
  /** Calendar API v3 root, without a trailing slash. */
  apiBaseUrl: string;
  /** Our callback, registered exactly as-is with the Google client. */
  redirectUri: string;
  /** Defaults to `googleScopes`. */
  scopes?: readonly string[];
}

export const googleEndpoints = {
  authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  apiBaseUrl: 'https://www.googleapis.com/calendar/v3',
} as const;

export const calendarScope = 'https://www.googleapis.com/auth/calendar';

/** Full calendar access (reads now, writes later) and the e-mail that names the account. */
export const googleScopes: readonly string[] = [calendarScope, 'openid', 'email'];

export type GoogleClientSettings = Pick<GoogleConfig, 'clientId' | 'clientSecret' | 'redirectUri'> &
  Partial<GoogleConfig>;

export const googleConfig = (settings: GoogleClientSettings): GoogleConfig => ({
  ...googleEndpoints,
  scopes: googleScopes,
  ...settings,
});

/** The display name in error messages. */
export const providerName = 'Google Calendar';
