/**
 * A PostgreSQL cluster of the test's own (initdb + pg_ctl on a free loopback port, in a temporary
 * directory), for tests that restart the server under the service. initdb refuses to run as
 * root: then the directory belongs to the `postgres` user and the binaries run as that user.
 * Missing binaries skip loudly outside CI and fail in CI.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './freePort.ts';

const run = promisify(execFile);
const debianRoot = '/usr/lib/postgresql';

/** The directory of initdb and pg_ctl: Debian's newest version, else whatever PATH holds. */
function binDir(): string | undefined {
  const versions = existsSync(debianRoot)
    ? readdirSync(debianRoot).sort((a, b) => Number(b) - Number(a))
    : [];
  for (const version of versions) {
    const dir = join(debianRoot, version, 'bin');
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return undefined;
}

const bin = binDir();

/** undefined when a cluster can be made here; otherwise why not (and in CI: throws). */
export function clusterMissing(what: string): string | undefined {
  if (bin !== undefined) return undefined;
  const why = 'initdb and pg_ctl not found (apt-get install postgresql)';
  if (process.env.CI) throw new Error(`${why}; required in CI`);
  process.stderr.write(`\n*** SKIPPING ${what}: ${why}\n\n`);
  return why;
}

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  /** `pg_ctl restart -m fast`: every connection is ended (57P01), the server is back when it resolves. */
  restart(): Promise<void>;
  /** Stops the server now, leaving its files (`start` brings it back). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its files. */
  destroy(): Promise<void>;
}

export async function startCluster(): Promise<PgCluster> {
  if (bin === undefined) throw new Error('no initdb here');
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'cas-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);
  const port = await freePort();
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  // Loopback TCP only; the socket in the cluster's own directory, not the system's.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off`;
  const ctl = (...args: string[]) =>
    pg('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', '-t', '30', ...args]);
  await ctl('start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: async () => {
      await ctl('restart', '-m', 'fast');
    },
    stop: async () => {
      await ctl('stop', '-m', 'fast');
    },
    start: async () => {
      await ctl('start');
    },
    destroy: async () => {
      await ctl('stop', '-m', 'immediate').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
