/** Environment → typed configuration, validated once at start. Pure: reads only the given env. */
import { type Environment, type LogLevel, type VariableName, variableReader } from './variables.ts';

export { type Environment, environments, type LogLevel, logLevels } from './variables.ts';

export interface Config {
  environment: Environment;
  host: string;
  port: number;
  /** Public origin (and optional path) the service is reached at, without a trailing slash. */
  baseUrl: string;
  /** BASE_URL was unset: `baseUrl` is made from PORT, right only on this machine and this port. */
  baseUrlFromPort: boolean;
  /** PostgreSQL connection string; absent → embedded SQLite in `dataDir`. */
  databaseUrl: string | undefined;
  /** Redis for the per-grant request budget shared by the instances; absent → PostgreSQL (or memory on SQLite). */
  redisUrl: string | undefined;
  dataDir: string;
  /** Embedded database: reader threads (store/sqliteReaders.ts). */
  sqliteReadThreads: number;
  /** Reads of the copies served at once (calendars/reads/readEvents.ts); the rest wait in line. */
  readsAtOnce: number;
  /** Bytes kept of the word index for searches (store/wordCache.ts); 0: none. */
  searchCacheBytes: number;
  /** 32-byte key for cookie/CSRF MACs and encryption at rest; absent → a per-install key file (not in production). */
  secretKey: Buffer | undefined;
  logLevel: LogLevel;
  trustProxy: boolean;
  sessionTtlHours: number;
  /** Present when the Google connect flow is configured. */
  google: OAuthProviderConfig | undefined;
  /** Present when the Microsoft 365 connect flow is configured. */
  microsoft: (OAuthProviderConfig & { tenant: string }) | undefined;
  /** Lets ICS subscriptions reach private and loopback addresses (off: no server-side request forgery). */
  icsAllowPrivateNetworks: boolean;
  /** Lets CalDAV accounts reach private and loopback addresses (self-hosted servers); off in production unless set. */
  caldavAllowPrivateNetworks: boolean;
  /** Timeout of one provider request attempt. */
  providerTimeoutMs: number;
  /** Worker threads parsing and expanding CalDAV and ICS calendars. */
  calendarWorkers: number;
  sync: {
    roundSeconds: number;
    leaseSeconds: number;
    intervalSeconds: number;
    maxAgeSeconds: number;
    horizonPastDays: number;
    horizonFutureDays: number;
  };
  /** Dynamic client registrations accepted per minute from one client address. */
  clientRegistrationsPerMinute: number;
  /** Requests to /mcp and /v1 accepted per minute for one grant. */
  grantRequestsPerMinute: number;
  /** Origins besides the service's own that browser-based MCP clients may call /mcp from. */
  mcpAllowedOrigins: string[];
  /** Who may read /metrics: bearers of `token`, and/or anyone reaching `listen` (then not the main port). */
  metrics: { token: string | undefined; listen: { host: string; port: number } | undefined };
  /** Present when invitations and reset links are e-mailed. */
  mail: MailConfig | undefined;
}

export interface MailConfig {
  /** Holds the SMTP password: never logged, never shown. */
  smtpUrl: string;
  from: string;
}

/** A provider's OAuth client; endpoint overrides point tests (or sovereign clouds) elsewhere. */
export interface OAuthProviderConfig {
  clientId: string;
  clientSecret: string;
  authorizationUrl: string | undefined;
  tokenUrl: string | undefined;
  apiBaseUrl: string | undefined;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[], options?: ErrorOptions) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`, options);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

/**
 * The configuration listening on `port` (one chosen for `PORT=0`): an unset BASE_URL follows the
 * port by the same rule as at load.
 */
export function withPort(config: Config, port: number): Config {
  if (!config.baseUrlFromPort) return { ...config, port };
  const baseUrl = variableReader({}, [])('BASE_URL', { PORT: String(port) });
  return { ...config, port, baseUrl };
}

/** Reads every variable by the table in `config/variables.ts`; here are only the rules across variables. */
export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  const read = variableReader(env, problems);
  // A rule across variables speaks only where the value itself was fine: one problem per variable.
  const fine = (name: VariableName) => !problems.some((p) => p.startsWith(name));

  const environment = read('APP_ENV');
  const port = read('PORT');
  const host = read('HOST');
  const baseUrlFromPort = !env.BASE_URL?.trim();
  const baseUrl = read('BASE_URL', { PORT: String(port) });
  if (environment === 'production' && fine('BASE_URL') && !baseUrl.startsWith('https:')) {
    problems.push('BASE_URL must use https when APP_ENV=production');
  }
  const databaseUrl = read('DATABASE_URL');
  const redisUrl = read('REDIS_URL');
  const dataDir = read('DATA_DIR');
  const sqliteReadThreads = read('SQLITE_READ_THREADS');
  const readsAtOnce = read('READS_AT_ONCE');
  const searchCacheMb = read('SEARCH_CACHE_MB');
  const secretKey = read('SECRET_KEY');
  if (environment === 'production' && secretKey === undefined && fine('SECRET_KEY')) {
    problems.push('SECRET_KEY is required when APP_ENV=production (32 random bytes, base64 or hex)');
  }
  const logLevel = read('LOG_LEVEL');
  const trustProxy = read('TRUST_PROXY');
  const sessionTtlHours = read('SESSION_TTL_HOURS');

  const oauthClient = (prefix: 'GOOGLE' | 'MICROSOFT'): OAuthProviderConfig | undefined => {
    const clientId = read(`${prefix}_CLIENT_ID`);
    const clientSecret = read(`${prefix}_CLIENT_SECRET`);
    if (clientId === undefined && clientSecret === undefined) return undefined;
    if (clientId === undefined || clientSecret === undefined) {
      problems.push(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET must be set together`);
      return undefined;
    }
    // The endpoints are read only for a configured client; unset, the adapter uses the provider's own.
    return {
      clientId,
      clientSecret,
      authorizationUrl: read(`${prefix}_AUTH_URL`),
      tokenUrl: read(`${prefix}_TOKEN_URL`),
      apiBaseUrl: read(`${prefix}_API_URL`),
    };
  };
  const google = oauthClient('GOOGLE');
  const microsoftClient = oauthClient('MICROSOFT');
  const microsoft = microsoftClient && { ...microsoftClient, tenant: read('MICROSOFT_TENANT') };
  const icsAllowPrivateNetworks = read('ICS_ALLOW_PRIVATE_NETWORKS');
  const caldavAllowPrivateNetworks = read('CALDAV_ALLOW_PRIVATE_NETWORKS') ?? environment !== 'production';
  const providerTimeoutMs = read('PROVIDER_TIMEOUT_MS');
  const calendarWorkers = read('CALENDAR_WORKERS');
  const sync = {
    roundSeconds: read('SYNC_ROUND_SECONDS'),
    leaseSeconds: read('SYNC_LEASE_SECONDS'),
    intervalSeconds: read('SYNC_INTERVAL_SECONDS'),
    maxAgeSeconds: read('SYNC_MAX_AGE_SECONDS'),
    horizonPastDays: read('SYNC_HORIZON_PAST_DAYS'),
    horizonFutureDays: read('SYNC_HORIZON_FUTURE_DAYS'),
  };
  const clientRegistrationsPerMinute = read('CLIENT_REGISTRATIONS_PER_MINUTE');
  const grantRequestsPerMinute = read('GRANT_REQUESTS_PER_MINUTE');
  const mcpAllowedOrigins = read('MCP_ALLOWED_ORIGINS');
  const metrics = { token: read('METRICS_TOKEN'), listen: read('METRICS_LISTEN') };
  const smtpUrl = read('SMTP_URL');
  const mail =
    smtpUrl === undefined
      ? undefined
      : { smtpUrl, from: read('MAIL_FROM', { BASE_HOST: URL.parse(baseUrl)?.hostname ?? 'localhost' }) };

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    environment,
    host,
    port,
    baseUrl,
    baseUrlFromPort,
    databaseUrl,
    redisUrl,
    dataDir,
    sqliteReadThreads,
    readsAtOnce,
    searchCacheBytes: searchCacheMb * 1024 * 1024,
    secretKey,
    logLevel,
    trustProxy,
    sessionTtlHours,
    google,
    microsoft,
    icsAllowPrivateNetworks,
    caldavAllowPrivateNetworks,
    providerTimeoutMs,
    calendarWorkers,
    sync,
    clientRegistrationsPerMinute,
    grantRequestsPerMinute,
    mcpAllowedOrigins,
    metrics,
    mail,
  };
}
