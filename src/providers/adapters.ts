/** Builds the calendar adapters and connect flows this deployment's configuration allows. */
import type { Config } from '../config/config.ts';
import type { ProviderKind } from '../domain/providerFacts.ts';
import type { Clock } from '../lib/clock.ts';
import { guardedFetch } from '../lib/guardedFetch.ts';
import type { ProviderCallOutcome } from '../lib/metrics.ts';
import { createCaldavProvider } from './caldav/adapter.ts';
import type { Connectors } from './connectors.ts';
import { createExpansionPool } from './expansionPool.ts';
import { createGoogleProvider } from './google/adapter.ts';
import { googleConfig } from './google/config.ts';
import { exchangeGoogleCode, googleAuthorizationUrl } from './google/oauth.ts';
import { createIcsProvider } from './ics/adapter.ts';
import { createMicrosoftProvider } from './microsoft/adapter.ts';
import { microsoftConfig } from './microsoft/config.ts';
import {
  exchangeCode as exchangeMicrosoftCode,
  authorizationUrl as microsoftAuthorizationUrl,
} from './microsoft/oauth.ts';
import { ProviderHttp, type ProviderHttpOptions } from './providerHttp.ts';
import type { Providers } from './registry.ts';

/** Drops unset overrides so the adapters' own defaults (the real endpoints) apply. */
const defined = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;

export function createCalendarAdapters(
  config: Config,
  clock: Clock,
  httpOptions: ProviderHttpOptions = {},
  /** Told how each request to a provider ended, by provider (the metrics). */
  observe: (provider: ProviderKind, outcome: ProviderCallOutcome) => void = () => {},
): { providers: Providers; connectors: Connectors } {
  // One client per provider, so that each request is counted under its provider.
  const httpFor = (kind: ProviderKind, fetch?: typeof globalThis.fetch) =>
    new ProviderHttp({
      timeoutMs: config.providerTimeoutMs,
      ...httpOptions,
      ...(fetch === undefined ? {} : { fetch }),
      observe: (outcome) => observe(kind, outcome),
    });
  // Addresses people type (CalDAV servers, feeds) may point anywhere: unless private networks are
  // allowed, each connection goes to the public address that was checked, resolved once.
  const publicOnly = (kind: ProviderKind, allowPrivateNetworks: boolean, allowedBy: string) =>
    httpFor(kind, allowPrivateNetworks ? undefined : guardedFetch({ allowedBy }));
  // One pool for both: together they may not take more threads than configured.
  const pool = createExpansionPool({ workers: config.calendarWorkers });
  const providers: Providers = {
    caldav: createCaldavProvider({
      http: publicOnly('caldav', config.caldavAllowPrivateNetworks, 'CALDAV_ALLOW_PRIVATE_NETWORKS'),
      pool,
      allowPrivateNetworks: config.caldavAllowPrivateNetworks,
    }),
    ics: createIcsProvider({
      http: publicOnly('ics', config.icsAllowPrivateNetworks, 'ICS_ALLOW_PRIVATE_NETWORKS'),
      allowPrivateNetworks: config.icsAllowPrivateNetworks,
      pool,
    }),
  };
  const connectors: Connectors = {};

  if (config.google !== undefined) {
    const settings = config.google;
    const google = googleConfig({
      clientId: settings.clientId,
      clientSecret: settings.clientSecret,
      redirectUri: `${config.baseUrl}/account/connect/google/callback`,
      ...defined({
        authorizationUrl: settings.authorizationUrl,
        tokenUrl: settings.tokenUrl,
        apiBaseUrl: settings.apiBaseUrl,
      }),
    });
    const deps = { http: httpFor('google'), config: google, clock };
    providers.google = createGoogleProvider(deps);
    connectors.google = {
      kind: 'google',
      authorizationUrl: (request) => googleAuthorizationUrl(google, request),
      exchange: (request) => exchangeGoogleCode(deps, request),
    };
  }

  if (config.microsoft !== undefined) {
    const settings = config.microsoft;
    const microsoft = microsoftConfig({
      clientId: settings.clientId,
      clientSecret: settings.clientSecret,
      tenant: settings.tenant,
      redirectUri: `${config.baseUrl}/account/connect/microsoft/callback`,
      ...defined({
        authorizationUrl: settings.authorizationUrl,
        tokenUrl: settings.tokenUrl,
        apiBaseUrl: settings.apiBaseUrl,
      }),
    });
    const deps = { http: httpFor('microsoft'), config: microsoft, clock };
    providers.microsoft = createMicrosoftProvider(deps);
    connectors.microsoft = {
      kind: 'microsoft',
      authorizationUrl: (request) => microsoftAuthorizationUrl(microsoft, request),
      exchange: ({ code, codeVerifier }) => exchangeMicrosoftCode(deps, code, codeVerifier),
    };
  }
  return { providers, connectors };
}
