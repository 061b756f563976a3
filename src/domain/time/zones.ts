/**
 * Time-zone names from the outside world (iCalendar TZIDs, provider fields) → IANA zones.
 * Temporal is the authority on what a zone is; offsets like "+01:00" are not zones.
 */
import { windowsZoneToIana } from './windowsZones.ts';

const supported = new Set(Intl.supportedValuesOf('timeZone'));
const utcAliases = new Set([
  'z',
  'utc',
  'etc/utc',
  'uct',
  'etc/uct',
  'universal',
  'etc/universal',
  'zulu',
  'etc/zulu',
]);
// Outlook writes its own URI for UTC.
const microsoftUtc = 'tzone://microsoft/utc';
const checked = new Map<string, string | undefined>();

/** The zone's IANA spelling as Temporal knows it (aliases kept), or undefined. */
function temporalZone(name: string): string | undefined {
  if (!checked.has(name)) {
    let id: string | undefined;
    if (/^[A-Za-z]/.test(name)) {
      try {
        id = new Temporal.ZonedDateTime(0n, name).timeZoneId;
      } catch {
        id = undefined;
      }
    }
    checked.set(name, id);
  }
  return checked.get(name);
}

/** Whether `name` is an IANA zone name (canonical or alias, e.g. "Asia/Calcutta", "UTC"). */
export function isIanaZone(name: string): boolean {
  return supported.has(name) || temporalZone(name) !== undefined;
}

/**
 * The IANA zone a TZID stands for: IANA names (UTC spellings become "Etc/UTC"), vendor-prefixed
 * names ("/mozilla.org/20050126_1/Europe/Berlin"), Windows names; undefined when unknown.
 */
export function resolveTzid(tzid: string): string | undefined {
  const name = tzid
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .trim();
  if (name === '') return undefined;
  const lower = name.toLowerCase();
  if (utcAliases.has(lower) || lower === microsoftUtc) return 'Etc/UTC';
  const iana = supported.has(name) ? name : temporalZone(name);
  if (iana !== undefined) return iana;
  const windows = windowsZoneToIana(name);
  if (windows !== undefined) return windows;
  if (name.startsWith('/')) return prefixedZone(name);
  return undefined;
}

/** "/vendor/…/Area/Location[/Sub]": the longest valid IANA tail (zone names have 1–3 parts). */
function prefixedZone(name: string): string | undefined {
  const parts = name.split('/').filter((part) => part !== '');
  for (let length = Math.min(3, parts.length - 1); length >= 1; length -= 1) {
    const tail = parts.slice(-length).join('/');
    if (utcAliases.has(tail.toLowerCase())) return 'Etc/UTC';
    const zone = temporalZone(tail);
    if (zone !== undefined) return zone;
  }
  return undefined;
}
