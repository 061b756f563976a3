/**
 * SSRF guard for addresses people type (feed URLs): the host must resolve only to public
 * addresses. Checked before each request and each redirect hop. The resolver is asked again by
 * fetch, so a DNS answer that changes in between (rebinding) is not covered; pinning the checked
 * address in the connection would close that gap.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AppError, invalidField } from '../errors.ts';

const nonPublic = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible (IPv4-mapped ones are checked as IPv4)
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // old site-local
  ['ff00::', 8], // multicast
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !nonPublic.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Throws invalid_request (field `url`) when `url`'s host is or resolves to a non-public address. */
export async function assertPublicHost(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = isIP(host) === 0 ? (await lookup(host, { all: true })).map((entry) => entry.address) : [host];
  } catch (error) {
    throw new AppError('provider_unavailable', `The host ${host} could not be resolved.`, {
      cause: error,
      details: { reason: 'network' },
    });
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw invalidField(
      'url',
      `The address ${host} points to a private or local network, which is not allowed.`,
    );
  }
}
