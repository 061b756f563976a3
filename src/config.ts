/** Environment → typed configuration, validated once at start. Pure: reads only the given env. */

export const environments = ['production', 'test', 'development'] as const;
export type Environment = (typeof environments)[number];
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

export interface Config {
  environment: Environment;
  host: string;
  port: number;
  /** Public origin (and optional path) the service is reached at, without a trailing slash. */
  baseUrl: string;
  /** PostgreSQL connection string; absent → embedded SQLite in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
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
  /** Timeout of one provider request attempt. */
  providerTimeoutMs: number;
  /** Dynamic client registrations accepted per minute from one client address. */
  clientRegistrationsPerMinute: number;
  /** Requests to /mcp and /v1 accepted per minute for one grant. */
  grantRequestsPerMinute: number;
  /** Origins besides the service's own that browser-based MCP clients may call /mcp from. */
  mcpAllowedOrigins: string[];
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
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** The variables the service reads, with their defaults; the README's table mirrors this. */
export const configVariables = {
  APP_ENV: 'development',
  HOST: '127.0.0.1',
  PORT: '3000',
  BASE_URL: 'http://localhost:$PORT',
  DATABASE_URL: '(unset: embedded SQLite)',
  DATA_DIR: './data',
  SECRET_KEY: '(unset: generated into $DATA_DIR/secret.key; required in production)',
  LOG_LEVEL: 'info',
  TRUST_PROXY: 'false',
  SESSION_TTL_HOURS: '168',
  GOOGLE_CLIENT_ID: '(unset: Google accounts cannot be connected)',
  GOOGLE_CLIENT_SECRET: '(unset)',
  GOOGLE_AUTH_URL: 'https://accounts.google.com/o/oauth2/v2/auth',
  GOOGLE_TOKEN_URL: 'https://oauth2.googleapis.com/token',
  GOOGLE_API_URL: 'https://www.googleapis.com/calendar/v3',
  MICROSOFT_CLIENT_ID: '(unset: Microsoft 365 accounts cannot be connected)',
  MICROSOFT_CLIENT_SECRET: '(unset)',
  MICROSOFT_TENANT: 'common',
  MICROSOFT_AUTH_URL: 'https://login.microsoftonline.com/$MICROSOFT_TENANT/oauth2/v2.0/authorize',
  MICROSOFT_TOKEN_URL: 'https://login.microsoftonline.com/$MICROSOFT_TENANT/oauth2/v2.0/token',
  MICROSOFT_API_URL: 'https://graph.microsoft.com/v1.0',
  ICS_ALLOW_PRIVATE_NETWORKS: 'false',
  PROVIDER_TIMEOUT_MS: '15000',
  CLIENT_REGISTRATIONS_PER_MINUTE: '10',
  GRANT_REQUESTS_PER_MINUTE: '600',
  MCP_ALLOWED_ORIGINS: '(unset: only the origin of BASE_URL)',
} as const;

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  const read = (name: keyof typeof configVariables): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };

  const environment = oneOf(read('APP_ENV') ?? 'development', environments, 'APP_ENV', problems);
  const port = integer(read('PORT') ?? '3000', 'PORT', 0, 65535, problems);
  const host = read('HOST') ?? '127.0.0.1';
  const baseUrl = parseBaseUrl(read('BASE_URL') ?? `http://localhost:${port}`, environment, problems);
  const databaseUrl = read('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }
  const secretKey = parseSecretKey(read('SECRET_KEY'), problems);
  if (
    environment === 'production' &&
    secretKey === undefined &&
    !problems.some((p) => p.startsWith('SECRET_KEY'))
  ) {
    problems.push('SECRET_KEY is required when APP_ENV=production (32 random bytes, base64 or hex)');
  }
  const logLevel = oneOf(read('LOG_LEVEL') ?? 'info', logLevels, 'LOG_LEVEL', problems);
  const trustProxy = boolean(read('TRUST_PROXY') ?? 'false', 'TRUST_PROXY', problems);
  const sessionTtlHours = integer(
    read('SESSION_TTL_HOURS') ?? '168',
    'SESSION_TTL_HOURS',
    1,
    24 * 90,
    problems,
  );

  const oauthClient = (prefix: 'GOOGLE' | 'MICROSOFT'): OAuthProviderConfig | undefined => {
    const clientId = read(`${prefix}_CLIENT_ID`);
    const clientSecret = read(`${prefix}_CLIENT_SECRET`);
    if (clientId === undefined && clientSecret === undefined) return undefined;
    if (clientId === undefined || clientSecret === undefined) {
      problems.push(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET must be set together`);
      return undefined;
    }
    const url = (name: 'AUTH_URL' | 'TOKEN_URL' | 'API_URL') => {
      const value = read(`${prefix}_${name}`);
      if (value !== undefined && !/^https?:\/\/\S+$/.test(value))
        problems.push(`${prefix}_${name} must be an http(s) URL`);
      return value;
    };
    return {
      clientId,
      clientSecret,
      authorizationUrl: url('AUTH_URL'),
      tokenUrl: url('TOKEN_URL'),
      apiBaseUrl: url('API_URL'),
    };
  };
  const google = oauthClient('GOOGLE');
  const microsoftClient = oauthClient('MICROSOFT');
  const microsoft = microsoftClient && { ...microsoftClient, tenant: read('MICROSOFT_TENANT') ?? 'common' };
  const icsAllowPrivateNetworks = boolean(
    read('ICS_ALLOW_PRIVATE_NETWORKS') ?? 'false',
    'ICS_ALLOW_PRIVATE_NETWORKS',
    problems,
  );
  const providerTimeoutMs = integer(
    read('PROVIDER_TIMEOUT_MS') ?? '15000',
    'PROVIDER_TIMEOUT_MS',
    100,
    120_000,
    problems,
  );
  const clientRegistrationsPerMinute = integer(
    read('CLIENT_REGISTRATIONS_PER_MINUTE') ?? '10',
    'CLIENT_REGISTRATIONS_PER_MINUTE',
    1,
    100_000,
    problems,
  );
  const grantRequestsPerMinute = integer(
    read('GRANT_REQUESTS_PER_MINUTE') ?? '600',
    'GRANT_REQUESTS_PER_MINUTE',
    1,
    10_000_000,
    problems,
  );
  const mcpAllowedOrigins = origins(read('MCP_ALLOWED_ORIGINS'), 'MCP_ALLOWED_ORIGINS', problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    environment,
    host,
    port,
    baseUrl,
    databaseUrl,
    dataDir: read('DATA_DIR') ?? './data',
    secretKey,
    logLevel,
    trustProxy,
    sessionTtlHours,
    google,
    microsoft,
    icsAllowPrivateNetworks,
    providerTimeoutMs,
    clientRegistrationsPerMinute,
    grantRequestsPerMinute,
    mcpAllowedOrigins,
  };
}

/** A comma-separated list of origins (`https://app.example`), each exactly an origin. */
function origins(value: string | undefined, name: string, problems: string[]): string[] {
  if (value === undefined) return [];
  const list = value
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of list) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || parsed.origin !== origin) {
      problems.push(`${name} must list origins like https://app.example, comma-separated (got "${origin}")`);
    }
  }
  return list;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], name: string, problems: string[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
  return allowed[0] as T;
}

function integer(value: string, name: string, min: number, max: number, problems: string[]): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
    return min;
  }
  return n;
}

function boolean(value: string, name: string, problems: string[]): boolean {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  problems.push(`${name} must be true or false (got "${value}")`);
  return false;
}

function parseBaseUrl(value: string, environment: Environment, problems: string[]): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`BASE_URL must be an absolute URL (got "${value}")`);
    return value;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push('BASE_URL must use http or https');
  } else if (url.search !== '' || url.hash !== '') {
    problems.push('BASE_URL must not have a query or fragment');
  } else if (environment === 'production' && url.protocol !== 'https:') {
    problems.push('BASE_URL must use https when APP_ENV=production');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function parseSecretKey(value: string | undefined, problems: string[]): Buffer | undefined {
  if (value === undefined) return undefined;
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) {
    problems.push('SECRET_KEY must be 32 bytes, given as 64 hex digits or base64');
    return undefined;
  }
  return key;
}
