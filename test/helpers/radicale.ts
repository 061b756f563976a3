/**
 * A real CalDAV server for tests: Debian's Radicale (python3-radicale) on 127.0.0.1, a free port,
 * storage in a temporary directory, plain-text htpasswd users. Missing Radicale skips loudly
 * outside CI and fails in CI. Also MKCALENDAR and PUT helpers, done with plain fetch.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './freePort.ts';

/** Debian's interpreter first: a pyenv or venv `python3` on PATH does not see Debian's modules. */
const pythons = [process.env.RADICALE_PYTHON, '/usr/bin/python3', 'python3'].filter(
  (python): python is string => python !== undefined && python !== '',
);

const radicalePython = pythons.find(
  (python) => spawnSync(python, ['-c', 'import radicale'], { stdio: 'ignore' }).status === 0,
);

/** undefined when Radicale can run here; otherwise why not (and in CI: throws). */
export function radicaleMissing(): string | undefined {
  if (radicalePython !== undefined) return undefined;
  const why = `Radicale not importable by ${pythons.join(' or ')} (apt-get install python3-radicale)`;
  if (process.env.CI) throw new Error(`${why}; required in CI`);
  process.stderr.write(`\n*** SKIPPING CalDAV tests: ${why}\n\n`);
  return why;
}

/**
 * A `from_file` rights file: `admin` may do anything, everyone else owns their home, except
 * `collection` (a path under a user's home, e.g. `alice/holidays`), which `user` may only read.
 * The first matching section wins; names are regular expressions.
 */
export function readOnlyCollectionRights(user: string, collection: string): string {
  const quoted = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `
[read-only]
user: ${quoted(user)}
collection: ${quoted(collection)}
permissions: r

[admin]
user: admin
collection: .*
permissions: RrWw

[root]
user: .+
collection:
permissions: R

[principal]
user: .+
collection: {user}
permissions: RW

[calendars]
user: .+
collection: {user}/[^/]+
permissions: rw
`;
}

export interface RadicaleOptions {
  /** username → password; default one user `alice`. */
  users?: Record<string, string>;
  /** A Radicale `from_file` rights file; default `owner_only`. */
  rights?: string;
}

export interface RadicaleServer {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** The first user. */
  username: string;
  password: string;
  stop(): Promise<void>;
}

async function waitUntilAnswering(url: string, child: ChildProcess, log: () => string): Promise<void> {
  // Generous: a busy machine starts Python slowly, and a ready Radicale ends the wait at once.
  const deadline = Temporal.Now.instant().add({ seconds: 60 });
  while (Temporal.Instant.compare(Temporal.Now.instant(), deadline) < 0) {
    if (child.exitCode !== null) throw new Error(`Radicale exited (${child.exitCode}):\n${log()}`);
    try {
      await fetch(url, { method: 'OPTIONS', signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`Radicale did not answer at ${url}:\n${log()}`);
}

export async function startRadicale(options: RadicaleOptions = {}): Promise<RadicaleServer> {
  if (radicalePython === undefined)
    throw new Error('Radicale is not installed (check radicaleMissing() first)');
  const users = options.users ?? { alice: 'alice-password' };
  const [username, password] = Object.entries(users)[0]!;
  const dir = await mkdtemp(join(tmpdir(), 'radicale-'));
  const port = await freePort();
  await writeFile(
    join(dir, 'users'),
    Object.entries(users)
      .map(([user, secret]) => `${user}:${secret}\n`)
      .join(''),
  );
  if (options.rights !== undefined) await writeFile(join(dir, 'rights'), options.rights);
  await writeFile(
    join(dir, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${join(dir, 'users')}`,
      'htpasswd_encryption = plain',
      'delay = 0',
      '[rights]',
      options.rights === undefined ? 'type = owner_only' : `type = from_file\nfile = ${join(dir, 'rights')}`,
      '[storage]',
      `filesystem_folder = ${join(dir, 'collections')}`,
      '[web]',
      'type = none',
      '[logging]',
      'level = warning',
      '',
    ].join('\n'),
  );
  let output = '';
  const child = spawn(radicalePython, ['-m', 'radicale', '--config', join(dir, 'config')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A test file that dies without its after() hook must not leave the server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}/`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilAnswering(url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, username, password, stop };
}

export const basicAuth = (username: string, password: string): string =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

const escapeXml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export interface NewCalendar {
  displayName: string;
  color?: string;
  /** A whole VCALENDAR holding one VTIMEZONE, as RFC 4791 §5.2.2 wants it. */
  timeZone?: string;
  /** supported-calendar-component-set; default VEVENT only. */
  components?: string[];
}

/** MKCALENDAR `calendarUrl` (ending in `/`) as `username`, an event calendar with the given properties. */
export async function mkcalendar(
  calendarUrl: string,
  auth: { username: string; password: string },
  calendar: NewCalendar,
): Promise<void> {
  const props = [
    `<d:displayname>${escapeXml(calendar.displayName)}</d:displayname>`,
    calendar.color === undefined ? '' : `<a:calendar-color>${escapeXml(calendar.color)}</a:calendar-color>`,
    calendar.timeZone === undefined
      ? ''
      : `<c:calendar-timezone>${escapeXml(calendar.timeZone)}</c:calendar-timezone>`,
    `<c:supported-calendar-component-set>${(calendar.components ?? ['VEVENT'])
      .map((name) => `<c:comp name="${name}"/>`)
      .join('')}</c:supported-calendar-component-set>`,
  ].join('');
  const response = await fetch(calendarUrl, {
    method: 'MKCALENDAR',
    headers: { authorization: basicAuth(auth.username, auth.password), 'content-type': 'application/xml' },
    body:
      '<?xml version="1.0" encoding="utf-8"?>' +
      '<c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:a="http://apple.com/ns/ical/">' +
      `<d:set><d:prop>${props}</d:prop></d:set></c:mkcalendar>`,
  });
  if (response.status !== 201) throw new Error(`MKCALENDAR ${calendarUrl}: HTTP ${response.status}`);
}

/**
 * A calendar file split into one resource per UID (what CalDAV requires, RFC 4791 §4.1), each
 * with the file's calendar properties and all its VTIMEZONEs. Folded lines stay attached.
 */
export function splitByUid(ics: string): Map<string, string> {
  const logical: string[] = [];
  for (const line of ics.split(/\r?\n/)) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && logical.length > 0)
      logical[logical.length - 1] += `\r\n${line}`;
    else if (line !== '') logical.push(line);
  }
  const header: string[] = [];
  const timezones: string[] = [];
  const byUid = new Map<string, string[]>();
  let block: string[] | undefined;
  let depth = 0;
  for (const line of logical) {
    const upper = line.toUpperCase();
    if (upper.startsWith('BEGIN:')) depth++;
    if (depth === 1 && !upper.startsWith('BEGIN:VCALENDAR') && !upper.startsWith('END:VCALENDAR'))
      header.push(line);
    if (depth === 2 && upper.startsWith('BEGIN:')) block = [];
    if (block !== undefined) block.push(line);
    if (upper.startsWith('END:')) {
      depth--;
      if (depth === 1 && block !== undefined) {
        if (block[0]!.toUpperCase() === 'BEGIN:VTIMEZONE') timezones.push(...block);
        else {
          const uidLine = block.find((l) => /^UID[:;]/i.test(l));
          if (uidLine === undefined) throw new Error(`a ${block[0]} without UID`);
          const uid = uidLine.slice(uidLine.indexOf(':') + 1).replaceAll(/\r\n[ \t]/g, '');
          byUid.set(uid, [...(byUid.get(uid) ?? []), ...block]);
        }
        block = undefined;
      }
    }
  }
  return new Map(
    [...byUid].map(([uid, components]) => [
      uid,
      ['BEGIN:VCALENDAR', ...header, ...timezones, ...components, 'END:VCALENDAR', ''].join('\r\n'),
    ]),
  );
}

/** A file name for a UID that every server accepts. */
export const resourceName = (uid: string): string => `${uid.replaceAll(/[^\w.-]/g, '_')}.ics`;

/** PUTs each object of `ics` into the calendar; UID → { href (relative), etag }. */
export async function putIcs(
  calendarUrl: string,
  auth: { username: string; password: string },
  ics: string,
): Promise<Map<string, { href: string; etag: string | null }>> {
  const stored = new Map<string, { href: string; etag: string | null }>();
  for (const [uid, object] of splitByUid(ics)) {
    const href = resourceName(uid);
    const response = await fetch(new URL(href, calendarUrl), {
      method: 'PUT',
      headers: {
        authorization: basicAuth(auth.username, auth.password),
        'content-type': 'text/calendar; charset=utf-8',
      },
      body: object,
    });
    if (response.status !== 201 && response.status !== 204) {
      throw new Error(`PUT ${href}: HTTP ${response.status} ${await response.text()}`);
    }
    stored.set(uid, { href, etag: response.headers.get('etag') });
  }
  return stored;
}
