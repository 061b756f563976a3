/**
 * autocannon's setupClient for requests over many users (loaded by path in its worker thread):
 * every connection goes round the same list, each starting at its own place, so that concurrent
 * connections ask for different users at any moment.
 */
interface Client {
  opts: { requests: unknown[] };
  setRequests(requests: unknown[]): void;
}

let connections = 0;

function rotate(client: Client): void {
  const { requests } = client.opts;
  const first = connections++ % requests.length;
  client.setRequests([...requests.slice(first), ...requests.slice(0, first)]);
}

// What `require` returns in autocannon's worker.
export { rotate as 'module.exports' };
