/** `npm start` as a newcomer runs it: a real process, an empty data directory, a first-run link. */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

function start(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** The first match of `pattern` in the output, as soon as it is printed; rejects if the process ends first. */
  printed: (pattern: RegExp) => Promise<RegExpExecArray>;
} {
  const child = spawn(process.execPath, ['src/start.ts'], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const printed = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output);
        if (match) resolve(match);
      };
      check();
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      void exited.then((code) =>
        reject(new Error(`exited (${code}) before printing ${pattern}:\n${output}`)),
      );
    });
  return { child, output: () => output, exited, printed };
}

describe('the service process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cas-main-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts on an empty embedded database and prints a single-use set-up link', async () => {
    const port = await freePort();
    const service = start({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    try {
      const [, link] = await service.printed(/(http:\/\/localhost:\d+\/setup\?token=[\w-]{43})/);
      assert.match(service.output(), /storage: embedded SQLite/);
      assert.ok(statSync(join(dataDir, 'calendar-access.sqlite')).isFile());
      assert.equal(statSync(join(dataDir, 'secret.key')).mode & 0o777, 0o600);
      assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
      const setup = await fetch(link!.replace('localhost', '127.0.0.1'));
      assert.equal(setup.status, 200);
      assert.match(await setup.text(), /Create owner account/);
    } finally {
      service.child.kill('SIGTERM');
      assert.equal(await service.exited, 0, 'shuts down cleanly');
    }
  });

  it('with PORT=0 listens on a port the system chose and prints links naming it', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'cas-main-port0-'));
    const service = start({ PORT: '0', DATA_DIR: fresh, LOG_LEVEL: 'warn' });
    try {
      const [, port] = await service.printed(/on http:\/\/localhost:(\d+), storage/);
      const [, link] = await service.printed(/(http:\/\/localhost:\d+\/setup\?token=[\w-]{43})/);
      assert.notEqual(Number(port), 0);
      assert.ok(link!.startsWith(`http://localhost:${port}/`));
      const setup = await fetch(link!.replace('localhost', '127.0.0.1'));
      assert.equal(setup.status, 200);
      assert.match(await setup.text(), /Create owner account/);
      const metadata = await fetch(
        `http://127.0.0.1:${port}/.well-known/oauth-authorization-server/api/auth`,
      );
      assert.equal(
        ((await metadata.json()) as { issuer: string }).issuer,
        `http://localhost:${port}/api/auth`,
      );
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('says what happened when SECRET_KEY is not the one the database was created with (exit 78)', async () => {
    // The first test made this data folder's database under its own key file.
    const other = Buffer.alloc(32, 7).toString('base64');
    const service = start({ PORT: String(await freePort()), DATA_DIR: dataDir, SECRET_KEY: other });
    assert.equal(await service.exited, 78);
    assert.match(service.output(), /SECRET_KEY is not the key this database was created with/);
    assert.doesNotMatch(service.output(), /Unsupported state or unable to authenticate data/);
  });

  it('refuses to start with a bad configuration, naming the problem (exit 78)', async () => {
    const service = start({ PORT: 'eighty', APP_ENV: 'production', DATA_DIR: dataDir });
    assert.equal(await service.exited, 78);
    assert.match(service.output(), /PORT must be a whole number/);
    assert.match(service.output(), /SECRET_KEY is required when APP_ENV=production/);
  });
});
