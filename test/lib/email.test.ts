/**
 * The one e-mail rule: a bare address and nothing else. Every form that could carry a second
 * address, or a name that differs from where mail goes, is refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEmailAddress, maxEmailLength } from '../../src/lib/email.ts';

/** Refused, each for a reason the rule names. */
const notBareAddresses = [
  '"victim"<attacker@evil.test>', // display name and angle brackets
  'Victim <attacker@evil.test>',
  '<attacker@evil.test>',
  'a,b@evil.test', // comma: two recipients
  'victim@example.org,attacker@evil.test',
  'victim@example.org;attacker@evil.test',
  '"a b"@example.org', // quoted local part
  '"victim@example.org"@evil.test',
  'a b@example.org', // spaces
  'ann@example.org ',
  'ann@exam ple.org',
  'ann\u0000@example.org', // control characters
  'ann@example.org\r\nBcc: attacker@evil.test',
  'ann\t@example.org',
  'ann@example.org\u0085',
  'a@b@example.org', // two @
  'victim@example.org@evil.test',
  '@example.org', // nothing before or after the @
  'ann@',
  'ann',
  'ann@localhost', // a domain without a dot
  'ann@example',
  'ann@[127.0.0.1]', // domain literals
  'ann@127.0.0.1',
  'ann@example..org', // empty labels, dots at the ends
  'ann@.example.org',
  'ann@example.org.',
  '.ann@example.org',
  'ann.@example.org',
  'an..n@example.org',
  'ann@-example.org', // hyphen at a label's end
  'ann@example-.org',
  'ann(comment)@example.org', // comments
  'ann@example.org(comment)',
  'ann\\@example.org', // backslash
  'ann@exa_mple.org',
  'ann@example.org>',
  'ann＜@example.org', // look-alike punctuation
  `${'a'.repeat(65)}@example.org`, // local part beyond 64
  `ann@${'a'.repeat(64)}.org`, // label beyond 63
  `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.org`, // 255 characters
];

const bareAddresses = [
  'ann@example.org',
  'Ann.Lee@Example.ORG',
  'ann+calendar@example.org',
  "o'brien@example.ie",
  'first.last-name_x@sub.example.co.uk',
  'en.german#holiday@group.v.calendar.google.com',
  'c_188abc@resource.calendar.google.com',
  'x@a.io',
  'müller@bücher.example', // internationalized (RFC 6531)
  '用户@例子.广告',
  `${'a'.repeat(64)}@example.org`,
  `ann@${'a'.repeat(63)}.org`,
];

describe('the one e-mail rule', () => {
  it('refuses everything but a bare address', () => {
    assert.deepEqual(notBareAddresses.filter(isEmailAddress), []);
  });

  it('accepts bare addresses, in any script, up to the limits', () => {
    assert.deepEqual(
      bareAddresses.filter((address) => !isEmailAddress(address)),
      [],
    );
    const longest = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.org`;
    assert.equal(longest.length, maxEmailLength);
    assert.ok(isEmailAddress(longest));
  });
});
