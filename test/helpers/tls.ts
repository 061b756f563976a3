/**
 * HTTPS on this machine for tests: a throwaway self-signed certificate for localhost and
 * 127.0.0.1 (made with the `openssl` CLI), an HTTPS server on a free loopback port, and the
 * outbound guard's allowance for it (for code that fetches https URLs, such as the
 * authorization server reading Client ID Metadata Documents).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuardedFetchOptions } from '../../src/lib/guardedFetch.ts';

export interface TestCertificate {
  key: string;
  cert: string;
}

let made: TestCertificate | undefined;

/** A self-signed certificate valid for localhost and 127.0.0.1 (made once per process). */
export function testCertificate(): TestCertificate {
  if (made !== undefined) return made;
  const dir = mkdtempSync(join(tmpdir(), 'test-tls-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'pipe' },
    );
    made = { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
    return made;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface TestHttpsServer {
  /** `https://localhost:{port}` */
  origin: string;
  port: number;
  /** The certificate to trust. */
  ca: string;
  /** Every request's method and path, in order. */
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 with the test certificate, reached as `https://localhost:{port}`. */
export async function startHttpsServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<TestHttpsServer> {
  const { key, cert } = testCertificate();
  const requests: TestHttpsServer['requests'] = [];
  const server: Server = createServer({ key, cert }, (request, response) => {
    requests.push({ method: request.method ?? '', path: request.url ?? '' });
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://localhost:${port}`,
    port,
    ca: cert,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * The outbound guard's allowance for this one server: its certificate trusted, `localhost`
 * resolving to 127.0.0.1 and that address allowed on its port only.
 */
export const trustingGuard = (server: TestHttpsServer): GuardedFetchOptions => ({
  ca: server.ca,
  resolve: async (hostname) => (hostname === 'localhost' ? ['127.0.0.1'] : []),
  testAllowances: [{ address: '127.0.0.1', port: server.port }],
});
