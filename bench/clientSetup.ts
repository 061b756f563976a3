/**
 * autocannon's setupClient (loaded by path in its worker thread). Every client records each
 * 2xx answer's time, in fractional milliseconds, into the shared buffer the run passes in its
 * options (autocannon's own percentiles are whole milliseconds: a bare route's 0.1 ms reads
 * 0). Over a list of requests, every connection goes round the same list, each starting at its
 * own place, so that concurrent connections ask for different users at any moment.
 */
import { workerData } from 'node:worker_threads';

interface Client {
  opts: { requests?: unknown[] };
  setRequests(requests: unknown[]): void;
  on(event: 'response', listener: (status: number, bytes: number, ms: number) => void): void;
}

/** The buffer's layout (bench/measure.ts#responseTimes): a count, then the times. */
const times: SharedArrayBuffer = workerData.opts.responseTimes;
const count = new Int32Array(times, 0, 1);
const recorded = new Float64Array(times, 8);

let connections = 0;

function setup(client: Client): void {
  client.on('response', (status, _bytes, ms) => {
    if (status < 200 || status >= 300) return;
    const at = Atomics.add(count, 0, 1);
    if (at < recorded.length) recorded[at] = ms;
  });
  const { requests } = client.opts;
  if (requests === undefined || requests.length === 0) return;
  const first = connections++ % requests.length;
  client.setRequests([...requests.slice(first), ...requests.slice(0, first)]);
}

// What `require` returns in autocannon's worker.
export { setup as 'module.exports' };
