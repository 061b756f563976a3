/**
 * Which addresses count as public: every special-use range, IPv6 forms judged by the IPv4 address
 * they carry, and the numeric spellings of IPv4 that URL parsing turns into dotted ones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { assertPublicHost, isPublicAddress } from '../../src/lib/networkGuard.ts';

const notPublic = [
  // IPv4 special-use ranges
  '0.0.0.0',
  '0.1.2.3',
  '10.0.0.1',
  '10.255.255.255',
  '100.64.0.1',
  '100.127.255.254',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.169.254',
  '172.16.0.1',
  '172.31.255.255',
  '192.0.0.8',
  '192.0.2.1',
  '192.88.99.1',
  '192.168.1.1',
  '198.18.0.1',
  '198.19.255.255',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.251',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  // IPv6 special-use ranges
  '::',
  '::1',
  '100::1',
  '2001:2::1',
  '2001:10::1',
  '2001:20::1',
  '2001:db8::1',
  '3fff::1',
  '5f00::1',
  'fc00::1',
  'fd12:3456::1',
  'fe80::1',
  'febf::1',
  'fec0::1',
  'ff02::1',
  // IPv4-mapped (::ffff:0:0/96), in both spellings
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::ffff:a00:1',
  '::ffff:169.254.169.254',
  '::ffff:0.0.0.0',
  // IPv4-translated (::ffff:0:0:0/96, RFC 2765), in both spellings, also written out in full
  '::ffff:0:7f00:1',
  '::ffff:0:127.0.0.1',
  '0:0:0:0:ffff:0:7f00:1',
  '::ffff:0:a00:1',
  '::ffff:0:10.0.0.1',
  '::ffff:0:a9fe:a9fe',
  '::ffff:0:c0a8:101',
  '::ffff:0:0.0.0.0',
  '::ffff:0:7f00:1%1', // with a zone id
  // IPv4-compatible (::/96)
  '::127.0.0.1',
  '::7f00:1',
  '::a00:1',
  '::192.168.0.1',
  // NAT64 well-known prefix (64:ff9b::/96) and the local-use one (64:ff9b:1::/48)
  '64:ff9b::127.0.0.1',
  '64:ff9b::7f00:1',
  '64:ff9b::a00:1',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b:1::1',
  '64:ff9b:1:ffff::8.8.8.8',
  // 6to4 (2002::/16): the IPv4 address follows the prefix
  '2002:7f00:1::',
  '2002:a00:1::1',
  '2002:c0a8:101:1::1',
  '2002:a9fe:a9fe::',
  // Teredo (2001::/32): server address, then the client address inverted
  '2001:0:7f00:1::1',
  '2001:0:a00:1::1',
  '2001:0:808:808::80ff:fffe', // client 127.0.0.1
  '2001:0:808:808::f5ff:fffe', // client 10.0.0.1
  // ISATAP (interface id 0:5efe or 200:5efe, RFC 5214) under any prefix, in both spellings
  '2606:4700::5efe:7f00:1',
  '2606:4700::5efe:127.0.0.1',
  '2606:4700::200:5efe:10.0.0.1',
  '2a00:1450:4001:81b:0:5efe:a9fe:a9fe',
];

const publicOnes = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.215.14',
  '100.63.255.255',
  '100.128.0.1',
  '172.15.255.255',
  '172.32.0.1',
  '192.169.0.1',
  '198.20.0.1',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2a00:1450:4001:81b::200e',
  '::ffff:1.1.1.1',
  '::ffff:808:808',
  '::ffff:0:8.8.8.8',
  '::ffff:0:808:808',
  '::8.8.8.8',
  '64:ff9b::8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '2001:0:808:808::f7f7:f7f7', // server 8.8.8.8, client 8.8.8.8
  '2606:4700::5efe:8.8.8.8',
  '2606:4700::200:5efe:808:808',
];

describe('the private-address guard', () => {
  it('refuses every special-use address, IPv4 carried in IPv6 by the address it carries', () => {
    const wronglyPublic = notPublic.filter(isPublicAddress);
    assert.deepEqual(wronglyPublic, []);
  });

  it('accepts public addresses, also when carried in IPv6', () => {
    const wronglyRefused = publicOnes.filter((address) => !isPublicAddress(address));
    assert.deepEqual(wronglyRefused, []);
  });

  it('is not fooled by decimal, octal, hex or short IPv4 spellings, nor by brackets', async () => {
    let resolved = 0;
    const resolve = async () => {
      resolved++;
      return ['8.8.8.8'];
    };
    for (const spelling of [
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0x7f000001/',
      'http://017700000001/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://167772161/', // 10.0.0.1
      'http://0xa9.0xfe.0xa9.0xfe/', // 169.254.169.254
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:0:7f00:1]/',
      'http://[::ffff:0:127.0.0.1]/',
      'http://[2606:4700::5efe:7f00:1]/',
      'http://[64:ff9b::10.0.0.1]/',
      'http://[2002:7f00:1::]/',
    ]) {
      await assert.rejects(
        assertPublicHost(new URL(spelling), undefined, resolve),
        (error) => error instanceof AppError && error.code === 'invalid_request',
        spelling,
      );
    }
    assert.equal(resolved, 0, 'addresses are checked as written, never resolved');
  });

  it('refuses a name when any of its addresses is not public', async () => {
    const url = new URL('https://calendar.example/feed.ics');
    await assertPublicHost(url, undefined, async () => ['8.8.8.8', '2606:4700:4700::1111']);
    for (const answer of [['8.8.8.8', '10.0.0.1'], ['::1'], ['64:ff9b::a00:1'], []]) {
      await assert.rejects(
        assertPublicHost(url, undefined, async () => answer),
        (error) => error instanceof AppError && error.code === 'invalid_request',
        answer.join(),
      );
    }
  });
});
