/** What the HTTP layer needs from the composition root. */
import type { Kysely } from 'kysely';
import type { Config } from './config/config.ts';
import type { Clock } from './lib/clock.ts';
import type { SecretBox } from './lib/encryption.ts';
import type { GuardedFetchOptions } from './lib/guardedFetch.ts';
import type { Metrics } from './lib/metrics.ts';
import type { Mailer } from './mail/mailer.ts';
import type { Connectors } from './providers/connectors.ts';
import type { Providers } from './providers/registry.ts';
import type { Database } from './store/schema.ts';

export interface AppContext {
  config: Config;
  db: Kysely<Database>;
  clock: Clock;
  /** 32-byte key for MACs (CSRF) and, later, encryption at rest. */
  secretKey: Buffer;
  /** Seals provider credentials at rest. */
  box: SecretBox;
  /** The calendar adapters this deployment offers. */
  providers: Providers;
  /** OAuth connect flows of the providers that have a configured client. */
  connectors: Connectors;
  /** The service's metrics (its own registry); `/metrics` shows them when configured. */
  metrics: Metrics;
  /** Tests only: what the authorization server's guarded fetch may reach besides public addresses. */
  outboundGuard?: GuardedFetchOptions;
  /** Tests only: where providers send change notifications though BASE_URL is not https (the fakes take loopback http). */
  pushAddress?: string;
  /** Sends invitations and reset links; absent without `SMTP_URL` (pages show the links). */
  mailer?: Mailer;
  /** Resolves when the database answers; used by /readyz. */
  ping(): Promise<void>;
  /** What is away while the service still serves (e.g. `redis`); /readyz names it. */
  degraded?(): string[];
}
