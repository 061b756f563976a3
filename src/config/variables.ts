/**
 * The environment variables the service reads: each one's default, reader (with its bounds) and
 * meaning, in one place. The table in docs/configuration.md is this table written out (one row each:
 * the name, `shown` or the default, then `doc` and what the reader accepts); test/config.test.ts
 * holds the two equal.
 */
import {
  baseUrl,
  bearerSecret,
  flag,
  httpUrl,
  listenAddress,
  mailbox,
  oneOf,
  origins,
  postgresUrl,
  redisUrl,
  secretKey,
  smtpUrl,
  text,
  type ValueReader,
  wholeNumber,
} from './readers.ts';

export const environments = ['production', 'test', 'development'] as const;
export type Environment = (typeof environments)[number];
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/**
 * `default` is read when the variable is unset or blank (a `$NAME` in it is filled from a value read
 * before, such as the port); without one, unset stays unset. `shown` says in words what unset means
 * where the bare default would not.
 */
export type ConfigVariable = { read: ValueReader<unknown>; doc: string } & (
  | { default: string; shown?: string }
  | { default?: undefined; shown: string }
);

export const configVariables = {
  APP_ENV: {
    default: 'development',
    read: oneOf(environments),
    doc: 'the kind of deployment (production requires `SECRET_KEY` and an https `BASE_URL`)',
  },
  HOST: {
    default: '127.0.0.1',
    read: text,
    doc: 'address to listen on (`0.0.0.0` to accept connections from other machines)',
  },
  PORT: {
    default: '3000',
    read: wholeNumber(0, 65_535),
    doc: 'port to listen on (0: one the system chooses, named in the start line)',
  },
  BASE_URL: {
    default: 'http://localhost:$PORT',
    read: baseUrl,
    doc: 'the public address people and clients use (behind a proxy: its https URL); the CLI prints links with it, and warns when it is unset',
  },
  DATABASE_URL: {
    shown: 'unset: embedded SQLite',
    read: postgresUrl,
    doc: '`postgres://user:password@host:5432/db` to use PostgreSQL 15+',
  },
  REDIS_URL: {
    shown: 'unset: in PostgreSQL (in memory with SQLite)',
    read: redisUrl,
    doc: '`redis://host:6379` to count the per-grant request budget, shared by every instance, in Redis (see Operations: many instances)',
  },
  DATA_DIR: {
    default: './data',
    read: text,
    doc: 'where the embedded database and, outside production, the generated key live',
  },
  SQLITE_READ_THREADS: {
    default: '1',
    read: wholeNumber(0, 16),
    doc: 'embedded database: threads that run the heavy reads (windows, searches, busy time) beside the request thread; 0 runs them on it',
  },
  READS_AT_ONCE: {
    default: '4',
    read: wholeNumber(1, 64),
    doc: 'reads of the synced copies served at once; the rest wait in line, so that under many clients the request thread never resumes them all in one turn',
  },
  SEARCH_CACHE_MB: {
    default: '8',
    read: wholeNumber(0, 1024),
    doc: "memory in MB kept for the copies' word index (and its starts) as searches read it, per version of each copy, from its second search on (0: none); an accelerator, never needed",
  },
  SECRET_KEY: {
    shown: 'unset: generated into `$DATA_DIR/secret.key`',
    read: secretKey,
    doc: '32 random bytes as 64 hex digits or base64 (`openssl rand -base64 32`); signs forms, encrypts secrets at rest',
  },
  LOG_LEVEL: { default: 'info', read: oneOf(logLevels), doc: 'how much to log' },
  TRUST_PROXY: {
    default: 'false',
    read: flag,
    doc: '`true` when behind a reverse proxy that sets `X-Forwarded-*`',
  },
  SESSION_TTL_HOURS: {
    default: '168',
    read: wholeNumber(1, 24 * 90),
    doc: 'how long a sign-in lasts, in hours',
  },
  GOOGLE_CLIENT_ID: {
    shown: 'unset: no Google button',
    read: text,
    doc: 'an OAuth client of Google Cloud (redirect URI `$BASE_URL/account/connect/google/callback`)',
  },
  GOOGLE_CLIENT_SECRET: { shown: 'unset', read: text, doc: "that client's secret (set both or neither)" },
  GOOGLE_AUTH_URL: {
    shown: "Google's public endpoint",
    read: httpUrl,
    doc: 'the OAuth authorization endpoint, overridden for tests and proxies',
  },
  GOOGLE_TOKEN_URL: {
    shown: "Google's public endpoint",
    read: httpUrl,
    doc: 'the OAuth token endpoint, overridden for tests and proxies',
  },
  GOOGLE_API_URL: {
    shown: "Google's public endpoint",
    read: httpUrl,
    doc: 'the Calendar API v3 root, overridden for tests and proxies',
  },
  MICROSOFT_CLIENT_ID: {
    shown: 'unset: no Microsoft button',
    read: text,
    doc: 'an app registration of Microsoft Entra ID (redirect URI `$BASE_URL/account/connect/microsoft/callback`)',
  },
  MICROSOFT_CLIENT_SECRET: {
    shown: 'unset',
    read: text,
    doc: "that registration's secret (set both or neither)",
  },
  MICROSOFT_TENANT: {
    default: 'common',
    read: text,
    doc: 'the Entra tenant (`common`, `organizations` or a tenant id)',
  },
  MICROSOFT_AUTH_URL: {
    shown: "Microsoft's public endpoint for `$MICROSOFT_TENANT`",
    read: httpUrl,
    doc: 'the OAuth authorization endpoint, overridden for tests and sovereign clouds',
  },
  MICROSOFT_TOKEN_URL: {
    shown: "Microsoft's public endpoint for `$MICROSOFT_TENANT`",
    read: httpUrl,
    doc: 'the OAuth token endpoint, overridden for tests and sovereign clouds',
  },
  MICROSOFT_API_URL: {
    shown: "Microsoft Graph's public endpoint",
    read: httpUrl,
    doc: 'the Graph v1.0 root, overridden for tests and sovereign clouds',
  },
  ICS_ALLOW_PRIVATE_NETWORKS: {
    default: 'false',
    read: flag,
    doc: 'let ICS subscriptions reach private, loopback and link-local addresses (keep off on shared deployments)',
  },
  CALDAV_ALLOW_PRIVATE_NETWORKS: {
    shown: 'unset: `true`, but `false` when `APP_ENV=production`',
    read: flag,
    doc: 'let CalDAV accounts reach servers on private, loopback and link-local addresses (self-hosted servers); off, the server address, every redirect and every href it names must be public',
  },
  PROVIDER_TIMEOUT_MS: {
    default: '15000',
    read: wholeNumber(100, 120_000),
    doc: 'timeout of one request to a calendar provider, in milliseconds (idempotent reads are retried with backoff)',
  },
  CALENDAR_WORKERS: {
    default: '2',
    read: wholeNumber(1, 64),
    doc: 'worker threads that parse and expand CalDAV and ICS calendars, off the request thread',
  },
  SYNC_INTERVAL_SECONDS: {
    default: '300',
    read: wholeNumber(10, 86_400),
    doc: 'how often each copied calendar is synced when no change notification arrives',
  },
  SYNC_ROUND_SECONDS: {
    default: '10',
    read: wholeNumber(1, 3_600),
    doc: 'how often an instance looks for calendars due a sync (new grants, intervals passed, notifications)',
  },
  SYNC_LEASE_SECONDS: {
    default: '120',
    read: wholeNumber(5, 3_600),
    doc: 'how long a sync may hold a calendar between two pages before another instance takes it over (longer than one provider request with its retries)',
  },
  SYNC_MAX_AGE_SECONDS: {
    default: '60',
    read: wholeNumber(0, 86_400),
    doc: 'a read first syncs a calendar whose copy is older than this (the answer says when that fails)',
  },
  SYNC_HORIZON_PAST_DAYS: {
    default: '365',
    read: wholeNumber(1, 3_650),
    doc: 'days before today that the copy of a calendar holds (earlier windows are read live)',
  },
  SYNC_HORIZON_FUTURE_DAYS: {
    default: '730',
    read: wholeNumber(1, 3_650),
    doc: 'days after today that the copy of a calendar holds (later windows are read live)',
  },
  CLIENT_REGISTRATIONS_PER_MINUTE: {
    default: '10',
    read: wholeNumber(1, 100_000),
    doc: 'dynamic client registrations accepted per minute from one client address',
  },
  GRANT_REQUESTS_PER_MINUTE: {
    default: '600',
    read: wholeNumber(1, 10_000_000),
    doc: 'requests to `/mcp` and `/v1` accepted per minute for one grant (then 429 `rate_limited` with `Retry-After`)',
  },
  MCP_ALLOWED_ORIGINS: {
    default: '',
    shown: "unset: only `BASE_URL`'s",
    read: origins,
    doc: "origins besides `BASE_URL`'s that browser-based MCP clients may call `/mcp` from, comma-separated; any other `Origin` gets 403",
  },
  METRICS_TOKEN: {
    shown: 'unset',
    read: bearerSecret,
    doc: '`/metrics` (Prometheus) answers requests with `Authorization: Bearer` and this token; never logged',
  },
  METRICS_LISTEN: {
    shown: 'unset: no separate listener',
    read: listenAddress,
    doc: 'a separate address that serves only `/metrics` (then not on `PORT`), such as `127.0.0.1:9464`; with neither this nor `METRICS_TOKEN`, `/metrics` is 404',
  },
  SMTP_URL: {
    shown: 'unset: no e-mail; pages show the links',
    read: smtpUrl,
    doc: '`smtp://user:password@host:587` (STARTTLS when the server offers it) or `smtps://…:465`: invitations and password-reset links are e-mailed',
  },
  MAIL_FROM: {
    default: 'Calendar Access <no-reply@$BASE_HOST>',
    shown: "`Calendar Access <no-reply@…>` at `BASE_URL`'s host",
    read: mailbox,
    doc: 'the sender of those e-mails, `name@example.com` or `Name <name@example.com>`',
  },
} as const satisfies Record<string, ConfigVariable>;

export type VariableName = keyof typeof configVariables;
type Variable<N extends VariableName> = (typeof configVariables)[N];

/** The typed value of a variable: its reader's result, or `undefined` when it has no default. */
export type VariableValue<N extends VariableName> =
  | ReturnType<Variable<N>['read']>
  | (Variable<N> extends { default: string } ? never : undefined);

/** Reads variables from `env` by the table; problems go to `problems`, named by the variable. */
export const variableReader =
  (env: Record<string, string | undefined>, problems: string[]) =>
  <N extends VariableName>(name: N, settings: Record<string, string> = {}): VariableValue<N> => {
    const variable: ConfigVariable = configVariables[name];
    const value =
      env[name]?.trim() || variable.default?.replace(/\$([A-Z_]+)/g, (match, key) => settings[key] ?? match);
    return (value === undefined ? undefined : variable.read(value, name, problems)) as VariableValue<N>;
  };
