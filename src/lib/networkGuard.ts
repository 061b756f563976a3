/**
 * SSRF guard for addresses strangers choose (feed URLs, client metadata and key documents): a
 * host must resolve only to public addresses. IPv6 forms that carry an IPv4 address (mapped,
 * translated, compatible, NAT64, 6to4, Teredo, ISATAP) are judged by the IPv4 address they carry. Host names are
 * checked here; guardedFetch.ts connects to the very address that was checked.
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
  ['192.88.99.0', 24], // 6to4 relays
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
  ['64:ff9b:1::', 48], // local-use NAT64: where the IPv4 address sits is the operator's choice
  ['100::', 64], // discard
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // old site-local
  ['ff00::', 8], // multicast
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit groups of a valid IPv6 address (a dotted IPv4 tail counts as two; a zone id is dropped). */
function ipv6Groups(address: string): number[] {
  const bare = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(bare);
  const text = dotted
    ? bare.slice(0, dotted.index) +
      [(Number(dotted[1]) << 8) | Number(dotted[2]), (Number(dotted[3]) << 8) | Number(dotted[4])]
        .map((group) => group.toString(16))
        .join(':')
    : bare;
  const [head = '', tail] = text.split('::');
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const ipv4Of = (high: number, low: number): string =>
  [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/**
 * The IPv4 addresses an IPv6 address stands for, by every form that carries one: a relay or
 * translator on the way may deliver to that IPv4 address, so each is judged as one.
 */
function embeddedIpv4(groups: number[]): string[] {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeros = (...values: number[]) => values.every((value) => value === 0);
  const last32 = ipv4Of(g6, g7);
  const carried: string[] = [];
  if (zeros(g0, g1, g2, g3, g4) && (g5 === 0 || g5 === 0xffff)) carried.push(last32); // compatible ::/96, mapped ::ffff:0:0/96
  if (zeros(g0, g1, g2, g3) && g4 === 0xffff && g5 === 0) carried.push(last32); // translated ::ffff:0:0:0/96 (RFC 2765)
  if (g0 === 0x64 && g1 === 0xff9b && zeros(g2, g3, g4, g5)) carried.push(last32); // NAT64 64:ff9b::/96 (RFC 6052)
  if (g0 === 0x2002) carried.push(ipv4Of(g1, g2)); // 6to4 2002::/16 (RFC 3056)
  if (g0 === 0x2001 && g1 === 0) carried.push(ipv4Of(g2, g3), ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff)); // Teredo 2001::/32: server, client inverted (RFC 4380)
  if ((g4 | 0x0300) === 0x0300 && g5 === 0x5efe) carried.push(last32); // ISATAP interface id 0:5efe or 200:5efe, any prefix (RFC 5214)
  return carried;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !nonPublic.check(address, 'ipv4');
  if (family === 0 || nonPublic.check(address, 'ipv6')) return false;
  return embeddedIpv4(ipv6Groups(address)).every(isPublicAddress);
}

/** Host names to addresses; the system resolver unless a test injects another. */
export type Resolve = (hostname: string) => Promise<string[]>;

export const systemResolve: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, order: 'verbatim' })).map((entry) => entry.address);

/** `hostname` without the brackets URLs put around IPv6 addresses. */
export const bareHost = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * The addresses of `host` (an IP literal is its own address), each one checked by `permitted`.
 * Throws invalid_request (field `url`) unless all are, before anything connects; the refusal names
 * the setting that allows private addresses (`allowedBy`), where one does.
 */
export async function checkedAddresses(
  host: string,
  resolve: Resolve = systemResolve,
  permitted: (address: string) => boolean = isPublicAddress,
  allowedBy?: string,
): Promise<string[]> {
  let addresses: string[];
  try {
    addresses = isIP(host) === 0 ? await resolve(host) : [host];
  } catch (error) {
    throw new AppError('provider_unavailable', `The host ${host} could not be resolved.`, {
      cause: error,
      details: { reason: 'network' },
    });
  }
  if (addresses.length === 0 || !addresses.every(permitted)) {
    const allowing = allowedBy === undefined ? '' : ` The operator can allow it with ${allowedBy}=true.`;
    throw invalidField(
      'url',
      `The address ${host} points to a private or local network, which is not allowed.${allowing}`,
    );
  }
  return addresses;
}

/** Throws invalid_request (field `url`) when `url`'s host is or resolves to a non-public address. */
export async function assertPublicHost(url: URL, allowedBy?: string, resolve?: Resolve): Promise<void> {
  await checkedAddresses(bareHost(url.hostname), resolve, isPublicAddress, allowedBy);
}
