/**
 * fetch for requests to addresses strangers choose. Every connection, redirects included, first
 * resolves its host once, refuses unless every address is public (networkGuard.ts), and then
 * connects to the address it checked: no second resolution for a rebinding DNS server to answer
 * differently, and no connection at all to a refused address, so a refusal looks the same
 * whether or not something listens there.
 */
import { Agent, buildConnector } from 'undici';
import { AppError } from '../errors.ts';
import { bareHost, checkedAddresses, isPublicAddress, type Resolve } from './networkGuard.ts';

export interface GuardedFetchOptions {
  /** The system resolver unless a test injects one. */
  resolve?: Resolve;
  /** Tests only: non-public addresses and ports a test's own servers listen on. */
  testAllowances?: ReadonlyArray<{ address: string; port: number }>;
  /** Certificates to trust instead of the system's (a test's own HTTPS servers). */
  ca?: string;
  /** Refuse plain http. */
  httpsOnly?: boolean;
  /** The setting that allows private addresses, named in the refusal. */
  allowedBy?: string;
}

const defaultPorts: Record<string, number> = { 'http:': 80, 'https:': 443 };

export function guardedFetch(options: GuardedFetchOptions = {}): typeof fetch {
  const connectChecked = buildConnector(options.ca === undefined ? {} : { ca: options.ca });
  const dispatcher = new Agent({
    connect(target, callback) {
      const port = Number(target.port) || (defaultPorts[target.protocol] ?? 0);
      const permitted = (address: string) =>
        isPublicAddress(address) ||
        (options.testAllowances ?? []).some(
          (allowed) => allowed.address === address && allowed.port === port,
        );
      checkedAddresses(bareHost(target.hostname), options.resolve, permitted, options.allowedBy).then(
        // The host stays the original name: TLS verifies the certificate against it.
        ([address]) => connectChecked({ ...target, hostname: address! }, callback),
        (error: Error) => callback(error, null),
      );
    },
  });

  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.protocol !== 'https:' && (options.httpsOnly || url.protocol !== 'http:')) {
      throw new AppError('invalid_request', `Only https addresses may be fetched, not ${url.protocol}.`, {
        details: { field: 'url' },
      });
    }
    try {
      // Node's fetch is undici: it accepts undici's Agent (callers' own dispatchers are replaced).
      return await fetch(input, { ...init, dispatcher } as RequestInit);
    } catch (error) {
      // fetch reports a refused connection as "fetch failed"; the refusal itself is the answer.
      if (error instanceof TypeError && error.cause instanceof AppError) throw error.cause;
      throw error;
    }
  }) as typeof fetch;
}
