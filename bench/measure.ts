/**
 * How the benchmark measures a route: autocannon from a worker thread (the service's thread
 * serves requests only), completed requests over elapsed time, latency percentiles; and the
 * requests it sends, as fetch sends them once beforehand to check and keep their answers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import autocannon from 'autocannon';

export const durationSeconds = Number(process.env.BENCH_SECONDS ?? 5);
const defaultConnections = 10;

/** One request, as autocannon sends it and as fetch sends it once beforehand. */
export interface Target {
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface Row {
  connections?: number;
  /** Marks a baseline: the letter its rows name in the ratio column. */
  letter?: string;
  /** The baseline this row is compared with (it takes the same request, answers the same bytes). */
  baseline?: Figures;
  /** Counted in `failed` instead of failing the run (rows whose bars include "no errors"). */
  tolerateErrors?: boolean;
}

export interface Figures extends Row {
  name: string;
  connections: number;
  /** Requests completed within the run. */
  completed: number;
  requestsPerSecond: number;
  /** Latencies of the 2xx answers, fractional ms; infinite for a row that completed none. */
  p50: number;
  p99: number;
  /** Answers not 2xx, errors and timeouts. */
  failed: number;
}

/**
 * Waits until this thread is idle: autocannon stops without waiting for the requests in flight,
 * and a slow route's leftovers would otherwise run into the next row.
 */
export async function settle(): Promise<void> {
  for (;;) {
    const before = performance.eventLoopUtilization();
    await sleep(100);
    if (performance.eventLoopUtilization(before).utilization < 0.05) return;
  }
}

/** A latency as the figures show it: 0.12 ms, 8.4 ms, 54 ms. */
export const ms = (value: number) => `${value.toFixed(value < 1 ? 2 : value < 10 ? 1 : 0)} ms`;

/** Where the run is, on stderr: the figures come at the end, on stdout. */
export const progress = (line: string) => process.stderr.write(`… ${line}\n`);

const clientSetup = fileURLToPath(new URL('./clientSetup.ts', import.meta.url));

/** Room for this many answers' times (a bare route answers ~150,000 in 5 s; past it, the first are kept). */
const recordedTimes = 1 << 21;

/** A run's answer times, as its clients record them (bench/clientSetup.ts): a count, then the times. */
const responseTimes = () => new SharedArrayBuffer(8 + 8 * recordedTimes);

/** The nearest-rank percentile `p` (0–1) of the values; NaN of none. */
export function percentile(values: ArrayLike<number>, p: number): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

function percentiles(times: SharedArrayBuffer): { p50: number; p99: number } {
  const recorded = new Float64Array(times, 8, Math.min(new Int32Array(times, 0, 1)[0]!, recordedTimes));
  const at = (p: number) => (recorded.length === 0 ? Number.POSITIVE_INFINITY : percentile(recorded, p));
  return { p50: at(0.5), p99: at(0.99) };
}

/** Measures one request sent again and again, or a list of them gone round (bench/clientSetup.ts). */
export async function measure(
  name: string,
  origin: string,
  target: Target | Target[],
  row: Row = {},
): Promise<Figures> {
  const connections = row.connections ?? defaultConnections;
  if (row.letter !== undefined) name = `baseline ${row.letter}: ${name}`;
  const times = responseTimes();
  const sent = Array.isArray(target)
    ? { requests: target.map((t) => ({ method: 'GET', ...t })) }
    : {
        url: `${origin}${target.path}`,
        method: target.method ?? 'GET',
        ...(target.headers === undefined ? {} : { headers: target.headers }),
        ...(target.body === undefined ? {} : { body: target.body }),
      };
  const options = {
    url: origin,
    ...sent,
    connections,
    duration: durationSeconds,
    // Queued behind slow reads, an answer may take far longer than the default 10 s.
    timeout: 60,
    // The load comes from another thread, so the service's thread serves requests only.
    workers: 1,
    setupClient: clientSetup,
    // Read by bench/clientSetup.ts in the worker (autocannon hands its options over as they are).
    responseTimes: times,
  };
  // autocannon's types know neither a setupClient given by path (its workers' way) nor our buffer.
  const result = await autocannon(options as unknown as autocannon.Options);
  await settle();
  progress(`${name}: ${result.requests.total} requests`);
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0 && row.tolerateErrors !== true)
    throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    name,
    completed: result.requests.total,
    // Completed over elapsed: per-second averages round slow routes to 0 or 1.
    requestsPerSecond: result.requests.total / result.duration,
    ...percentiles(times),
    failed,
    ...row,
    connections,
  };
}

export interface Answer {
  contentType: string;
  body: string;
}

/** Sends the request once; its answer is what a baseline will serve. */
export async function answer(name: string, target: Target, origin: string): Promise<Answer> {
  const response = await fetch(`${origin}${target.path}`, {
    method: target.method ?? 'GET',
    ...(target.headers === undefined ? {} : { headers: target.headers }),
    ...(target.body === undefined ? {} : { body: target.body }),
  });
  const body = await response.text();
  if (!response.ok) throw new Error(`${name}: ${response.status} ${body.slice(0, 500)}`);
  return { contentType: response.headers.get('content-type') ?? 'application/octet-stream', body };
}

/** The tool result in an MCP answer, sent as JSON or as one SSE event (the same bytes either way for the baseline). */
export function toolResult({ contentType, body }: Answer) {
  const json = contentType.startsWith('text/event-stream')
    ? body
        .split('\n')
        .find((line) => line.startsWith('data: '))
        ?.slice('data: '.length)
    : body;
  return JSON.parse(json ?? 'null')?.result;
}

export const mcpHeaders = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
});

/**
 * Protocol 2026-07-28: stateless, every request carries the envelope and the standard headers,
 * as @modelcontextprotocol/client v2 sends them when pinned to this version.
 */
export const modernCall = (token: string, name: string, args: Record<string, unknown>): Target => ({
  path: '/mcp',
  method: 'POST',
  headers: {
    ...mcpHeaders(token),
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': name,
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      _meta: {
        [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
        [CLIENT_INFO_META_KEY]: { name: 'bench', version: '1' },
        [CLIENT_CAPABILITIES_META_KEY]: {},
      },
    },
  }),
});
