import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { windowsZones, windowsZoneToIana } from '../../src/domain/time/windowsZones.ts';
import { isIanaZone, resolveTzid } from '../../src/domain/time/zones.ts';

describe('windowsZoneToIana', () => {
  it('maps the common Windows names (CLDR territory 001)', () => {
    assert.equal(windowsZoneToIana('W. Europe Standard Time'), 'Europe/Berlin');
    assert.equal(windowsZoneToIana('Pacific Standard Time'), 'America/Los_Angeles');
    assert.equal(windowsZoneToIana('Eastern Standard Time'), 'America/New_York');
    assert.equal(windowsZoneToIana('GMT Standard Time'), 'Europe/London');
    assert.equal(windowsZoneToIana('UTC'), 'Etc/UTC');
    assert.equal(windowsZoneToIana('India Standard Time'), 'Asia/Kolkata');
    assert.equal(windowsZoneToIana('Dateline Standard Time'), 'Etc/GMT+12');
    assert.equal(windowsZoneToIana('Pacific Standard Time (Mexico)'), 'America/Tijuana');
  });

  it('ignores case and surrounding spaces, and knows nothing else', () => {
    assert.equal(windowsZoneToIana('  romance standard time '), 'Europe/Paris');
    assert.equal(windowsZoneToIana('Europe/Berlin'), undefined);
    assert.equal(windowsZoneToIana('Customized Time Zone'), undefined);
  });

  it('maps every Windows name to a zone Temporal knows', () => {
    const names = Object.keys(windowsZones);
    assert.ok(names.length >= 140, `only ${names.length} names`);
    for (const name of names) {
      const zone = windowsZoneToIana(name);
      assert.ok(zone !== undefined && isIanaZone(zone), `${name} → ${zone}`);
    }
  });
});

describe('isIanaZone', () => {
  it('accepts canonical names and aliases', () => {
    for (const name of [
      'Europe/Berlin',
      'Etc/UTC',
      'UTC',
      'Asia/Calcutta',
      'America/Argentina/Buenos_Aires',
    ]) {
      assert.equal(isIanaZone(name), true, name);
    }
  });

  it('rejects offsets, Windows names and nonsense', () => {
    for (const name of ['+01:00', '-0500', 'W. Europe Standard Time', 'Mars/Olympus', '', 'Z']) {
      assert.equal(isIanaZone(name), false, name);
    }
  });
});

describe('resolveTzid', () => {
  it('keeps IANA names and spells UTC as Etc/UTC', () => {
    assert.equal(resolveTzid('Europe/Berlin'), 'Europe/Berlin');
    assert.equal(resolveTzid('America/Argentina/Buenos_Aires'), 'America/Argentina/Buenos_Aires');
    for (const utc of ['UTC', 'utc', 'Z', 'Etc/UTC', 'Etc/Zulu', 'tzone://Microsoft/Utc']) {
      assert.equal(resolveTzid(utc), 'Etc/UTC', utc);
    }
  });

  it('strips vendor prefixes down to a valid IANA tail', () => {
    assert.equal(resolveTzid('/mozilla.org/20050126_1/Europe/Berlin'), 'Europe/Berlin');
    assert.equal(resolveTzid('/freeassociation.sourceforge.net/Tzfile/Europe/London'), 'Europe/London');
    assert.equal(resolveTzid('/citadel.org/20190914_1/Europe/Paris'), 'Europe/Paris');
    assert.equal(
      resolveTzid('/mozilla.org/20070129_1/America/Argentina/Buenos_Aires'),
      'America/Argentina/Buenos_Aires',
    );
    assert.equal(resolveTzid('/softwarestudio.org/Olson_20011030_5/America/New_York'), 'America/New_York');
    assert.equal(resolveTzid('/example.com/1/Nowhere/Atlantis'), undefined);
  });

  it('maps Windows names and unquotes quoted TZIDs', () => {
    assert.equal(resolveTzid('W. Europe Standard Time'), 'Europe/Berlin');
    assert.equal(resolveTzid('"Europe/Berlin"'), 'Europe/Berlin');
    assert.equal(resolveTzid('"Pacific Standard Time"'), 'America/Los_Angeles');
  });

  it('returns undefined for what it cannot place', () => {
    for (const tzid of [
      'UTC+11',
      'custom_Pacific/Fiji',
      'MyTimezone',
      '+01:00',
      '',
      '""',
      'Customized Time Zone',
    ]) {
      assert.equal(resolveTzid(tzid), undefined, tzid);
    }
  });
});
