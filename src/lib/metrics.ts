/**
 * The service's metrics, on a registry of its own (several applications may share a process, as
 * tests do). Every label value comes from a closed set — methods, route patterns, tool names,
 * provider kinds, error codes — never from what a caller sent.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** How one request to a provider ended: `ok` (below 400), its status class, `timeout` or `network`. */
export type ProviderCallOutcome = 'ok' | '4xx' | '5xx' | 'timeout' | 'network';

/** Which limit refused a request: a grant's budget, the failed sign-ins of an address, a route's rate. */
export type Limiter = 'grant' | 'sign_in' | 'route';

/** What the copies look like now, read when metrics are scraped. */
export interface CopyHealth {
  copies: number;
  /** Copies whose last sync failed. */
  failing: number;
  /** Seconds since the least recently synced copy was synced (0 without synced copies). */
  oldestAgeSeconds: number;
}

export interface Metrics {
  /** Prometheus text format. */
  readonly contentType: string;
  exposition(): Promise<string>;
  httpRequest(labels: { method: string; route: string; statusCode: number }, seconds: number): void;
  /** Starts timing a tool call; the returned function ends it with `ok` or an error code. */
  toolCall(tool: string): (outcome: string) => void;
  providerCall(provider: string, outcome: ProviderCallOutcome): void;
  sync(provider: string, outcome: string, seconds: number): void;
  tokenIssued(): void;
  consent(outcome: 'given' | 'denied'): void;
  grantEnded(): void;
  refused(limiter: Limiter): void;
  /** Where the copy gauges are read from at each scrape (set once, by the composition root). */
  readCopyHealth(read: () => Promise<CopyHealth>): void;
  /** Where the count of reads waiting for a slot (lib/workSlots.ts) is read at each scrape. */
  readReadsWaiting(read: () => number): void;
  /** A search's lookup of one copy's words in the cache (store/wordCache.ts): found whole, or read. */
  searchCacheLookup(outcome: 'hit' | 'miss'): void;
  /** Where the bytes the search cache holds are read at each scrape. */
  readSearchCacheBytes(read: () => number): void;
}

/** The methods counted by name; any other is `other`. */
const knownMethods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/** Up to a minute: requests and tool calls that wait for providers take seconds. */
const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const counter = (name: string, help: string, labelNames: string[] = []) =>
    new Counter({ name, help, labelNames, registers });
  const histogram = (name: string, help: string, labelNames: string[], buckets = latencyBuckets) =>
    new Histogram({ name, help, labelNames, buckets, registers });

  const requestLabels = ['method', 'route', 'status'];
  const httpRequests = counter(
    'http_requests_total',
    'HTTP requests answered, by method, route pattern and status class.',
    requestLabels,
  );
  const httpDuration = histogram(
    'http_request_duration_seconds',
    'Time to answer HTTP requests, by method, route pattern and status class.',
    requestLabels,
  );
  const toolCalls = counter(
    'mcp_tool_calls_total',
    'MCP tool calls, by tool and outcome (ok or the error code).',
    ['tool', 'outcome'],
  );
  const toolDuration = histogram('mcp_tool_call_duration_seconds', 'Time of MCP tool calls, by tool.', [
    'tool',
  ]);
  const providerCalls = counter(
    'provider_requests_total',
    'Requests to calendar providers (each attempt), by provider and outcome.',
    ['provider', 'outcome'],
  );
  const syncs = counter(
    'calendar_syncs_total',
    'Syncs of calendar copies, by provider and outcome (synced or the failure reason).',
    ['provider', 'outcome'],
  );
  // A first sync of a large calendar takes minutes.
  const syncDuration = histogram(
    'calendar_sync_duration_seconds',
    'Time of syncs of calendar copies, by provider.',
    ['provider'],
    [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  );
  const tokens = counter('oauth_access_tokens_issued_total', 'Access tokens issued.');
  const consents = counter('oauth_consents_total', 'Consent decisions, by outcome (given or denied).', [
    'outcome',
  ]);
  const grantsEnded = counter(
    'oauth_grants_ended_total',
    'Grants ended: revoked by their person, replaced, their client blocked, or ended by the authorization server.',
  );
  const refusals = counter(
    'rate_limit_refusals_total',
    'Requests refused by a rate limit, by limiter (grant budget, sign-in failures, route rate).',
    ['limiter'],
  );

  let copyHealth: (() => Promise<CopyHealth>) | undefined;
  let health: Promise<CopyHealth | undefined> | undefined;
  // The three gauges are collected together: they share one read per scrape.
  const healthNow = () => {
    // A failed read (the database away) leaves the gauges as they were; the rest is still served.
    health ??= (copyHealth?.() ?? Promise.resolve(undefined))
      .catch(() => undefined)
      .finally(() => {
        health = undefined;
      });
    return health;
  };
  const copyGauge = (name: string, help: string, value: (h: CopyHealth) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const h = await healthNow();
        if (h !== undefined) this.set(value(h));
      },
    });
  copyGauge('calendar_copies', 'Calendar copies kept.', (h) => h.copies);
  copyGauge('calendar_copies_failing', 'Calendar copies whose last sync failed.', (h) => h.failing);
  copyGauge(
    'calendar_copy_oldest_age_seconds',
    'Seconds since the least recently synced copy was synced.',
    (h) => h.oldestAgeSeconds,
  );

  let readsWaiting: (() => number) | undefined;
  new Gauge({
    name: 'copy_reads_waiting',
    help: 'Reads of the calendar copies waiting in line for a slot (READS_AT_ONCE) now.',
    registers,
    collect() {
      this.set(readsWaiting?.() ?? 0);
    },
  });

  const searchCacheLookups = counter(
    'search_cache_lookups_total',
    "Lookups of a copy's word index in the search cache (SEARCH_CACHE_MB), by outcome: hit (nothing read) or miss.",
    ['outcome'],
  );
  let searchCacheBytes: (() => number) | undefined;
  new Gauge({
    name: 'search_cache_bytes',
    help: 'Bytes the search cache holds now (of SEARCH_CACHE_MB).',
    registers,
    collect() {
      this.set(searchCacheBytes?.() ?? 0);
    },
  });

  // Since the previous scrape (a stall shows in the next one), in one metric under the name the
  // operations documentation uses; prom-client's nodejs_eventloop_lag_* split the same measure.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  new Gauge({
    name: 'eventloop_delay_seconds',
    help: 'Event loop delay since the previous scrape, by stat (p50, p99, max).',
    labelNames: ['stat'],
    registers,
    collect() {
      const seconds = (ns: number) => (loopDelay.count === 0 ? 0 : ns / 1e9);
      this.set({ stat: 'p50' }, seconds(loopDelay.percentile(50)));
      this.set({ stat: 'p99' }, seconds(loopDelay.percentile(99)));
      this.set({ stat: 'max' }, seconds(loopDelay.max));
      loopDelay.reset();
    },
  });

  const statusClass = (statusCode: number) => `${Math.floor(statusCode / 100)}xx`;
  // Node's parser takes some thirty methods (PROPFIND, PURGE, …): each would be series of its own.
  const methodLabel = (method: string) => (knownMethods.has(method) ? method : 'other');

  return {
    contentType: registry.contentType,
    exposition: () => registry.metrics(),
    httpRequest({ method, route, statusCode }, seconds) {
      const labels = { method: methodLabel(method), route, status: statusClass(statusCode) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
    toolCall(tool) {
      const done = toolDuration.startTimer({ tool });
      return (outcome) => {
        done();
        toolCalls.inc({ tool, outcome });
      };
    },
    providerCall: (provider, outcome) => providerCalls.inc({ provider, outcome }),
    sync(provider, outcome, seconds) {
      syncs.inc({ provider, outcome });
      syncDuration.observe({ provider }, seconds);
    },
    tokenIssued: () => tokens.inc(),
    consent: (outcome) => consents.inc({ outcome }),
    grantEnded: () => grantsEnded.inc(),
    refused: (limiter) => refusals.inc({ limiter }),
    readCopyHealth(read) {
      copyHealth = read;
    },
    readReadsWaiting(read) {
      readsWaiting = read;
    },
    searchCacheLookup: (outcome) => searchCacheLookups.inc({ outcome }),
    readSearchCacheBytes(read) {
      searchCacheBytes = read;
    },
  };
}
