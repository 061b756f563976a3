/**
 * `npm start` as an operator (or a process supervisor) runs it: SIGTERM to the npm process ends
 * the service too — no node process left behind holding the port; the service runs with Node's
 * compile cache on, in the checkout unless the operator names another place (NODE_COMPILE_CACHE).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from './helpers/freePort.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The service closes within 10 s (main.ts) and exits regardless after: this leaves room for npm. */
const goneWithinMs = 15_000;

/** Every process below `pid`, as Linux lists them. */
function descendants(pid: number): number[] {
  let children: number[];
  try {
    children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
        .split(' ')
        .filter((text) => text !== '')
        .map(Number),
    );
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * `npm start` in a data directory of its own, with `env` added; `check` is given the service's
 * process once it listens; then SIGTERM to npm must end every process below it and free the port.
 */
async function npmStartThenStop(
  env: Record<string, string>,
  check: (service: number) => void,
): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cas-npm-start-'));
  const port = await freePort();
  const npm = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dataDir,
      APP_ENV: 'test',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  let below: number[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      npm.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (output.includes('Calendar Access Service')) resolve();
      });
      npm.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
      });
      void exited.then(() => reject(new Error(`npm start exited before listening:\n${output}`)));
    });
    below = descendants(npm.pid!);
    assert.ok(below.length > 0, 'npm runs the service in a process of its own');
    assert.ok(await portAnswers(port));
    const service = below.find((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('src/start.ts'),
    );
    assert.ok(service !== undefined, 'the service process runs src/start.ts');
    check(service);

    npm.kill('SIGTERM');
    const started = performance.now();
    await exited;
    while (below.some(alive) || (await portAnswers(port))) {
      assert.ok(
        performance.now() - started < goneWithinMs,
        `still running after SIGTERM: ${below.filter(alive).join(', ')}\n${output}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    for (const pid of below) if (alive(pid)) process.kill(pid, 'SIGKILL');
    npm.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The service process's compile cache, as its environment says. */
const compileCacheOf = (service: number) =>
  readFileSync(`/proc/${service}/environ`, 'utf8')
    .split('\0')
    .find((entry) => entry.startsWith('NODE_COMPILE_CACHE='));

describe('npm start', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  it('ends on SIGTERM to npm: no node process remains, the port is free', async () => {
    await npmStartThenStop({}, (service) => {
      // Its modules, type-stripped and compiled, kept in the checkout for the next start (docs/operations.md).
      assert.equal(compileCacheOf(service), 'NODE_COMPILE_CACHE=node_modules/.cache/compile');
    });
  });

  it('takes the compile cache the operator names, and starts the same where it cannot be made', async () => {
    await npmStartThenStop({ NODE_COMPILE_CACHE: '/dev/null/compile' }, (service) => {
      assert.equal(compileCacheOf(service), 'NODE_COMPILE_CACHE=/dev/null/compile');
    });
  });
});
