/** The administration CLI, run in-process against a throwaway embedded database. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../../src/cli/run.ts';
import { cliIn } from '../helpers/cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'cas-cli-'));

const cli = (...argv: string[]) => cliWith({}, ...argv);
const connectIcs = (env: Record<string, string>, workspace: string, url: string) =>
  cliWith(
    env,
    'account',
    'connect-ics',
    '--email',
    'owner@example.org',
    '--workspace',
    workspace,
    '--url',
    url,
  );

const cliWith = (env: Record<string, string>, ...argv: string[]) => cliIn(dataDir, env, ...argv);

describe('CLI', () => {
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('migrates, then reports nothing left to do', async () => {
    const first = await cli('migrate');
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /Applied: 0001_people_and_workspaces, 0002_connected_accounts/);
    assert.deepEqual(await cli('migrate'), { code: 0, out: 'Database is up to date.', err: '' });
  });

  it('creates a user, a workspace and a membership, printing the ids', async () => {
    const owner = await cli(
      'user',
      'create',
      '--email',
      'Owner@Example.org',
      '--password',
      'a long enough secret',
      '--name',
      'Owen',
    );
    assert.equal(owner.code, 0, owner.err);
    assert.match(owner.out, /^usr_[\w-]{22}$/);
    const ws = await cli('workspace', 'create', '--name', 'Ops', '--owner', 'owner@example.org');
    assert.equal(ws.code, 0, ws.err);
    assert.match(ws.out, /^ws_[\w-]{22}$/);
    const byId = await cli('workspace', 'create', '--name', 'Ops 2', '--owner', owner.out);
    assert.equal(byId.code, 0, byId.err);
    const member = await cli(
      'user',
      'create',
      '--email',
      'm@example.org',
      '--password',
      'another long secret',
    );
    const added = await cli(
      'workspace',
      'add-member',
      '--workspace',
      ws.out,
      '--email',
      'M@example.org',
      '--role',
      'admin',
    );
    assert.deepEqual(added, { code: 0, out: member.out, err: '' });
    const invited = await cli(
      'workspace',
      'add-member',
      '--workspace',
      ws.out,
      '--email',
      'new@example.org',
      '--role',
      'member',
    );
    assert.equal(invited.code, 0);
    assert.match(invited.out, /invitation link .*\/invitation\?token=[\w-]{43}$/);
  });

  it('refuses bad input with a code and a non-zero exit, writing nothing', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['user', 'create', '--email', 'x@example.org'], 2, /--password is required/],
      [
        ['user', 'create', '--email', 'bad', '--password', 'a long enough secret'],
        1,
        /invalid_request: Enter a valid e-mail/,
      ],
      [
        ['user', 'create', '--email', 'owner@example.org', '--password', 'a long enough secret'],
        1,
        /already_exists/,
      ],
      [
        ['user', 'create', '--email', 'y@example.org', '--password', 'short'],
        1,
        /invalid_request: Use at least 12/,
      ],
      [
        ['workspace', 'create', '--name', 'X', '--owner', 'ghost@example.org'],
        1,
        /not_found: No account uses ghost@example.org/,
      ],
      [
        ['workspace', 'add-member', '--workspace', 'ws_nope', '--email', 'm@example.org', '--role', 'member'],
        1,
        /not_found/,
      ],
      [
        ['workspace', 'add-member', '--workspace', 'ws_x', '--email', 'm@example.org', '--role', 'king'],
        1,
        /invalid_request: Role must be/,
      ],
      [['user', 'delete'], 2, /unknown command "user delete"/],
      [[], 2, /no command given/],
      [['user', 'create', '--colour', 'red'], 2, /Unknown option '--colour'/],
    ];
    for (const [argv, code, message] of cases) {
      const result = await cli(...argv);
      assert.equal(result.code, code, `${argv.join(' ')}: ${result.err}`);
      assert.match(result.err, message, argv.join(' '));
      assert.equal(result.out, '');
    }
    const y = await cli('user', 'create', '--email', 'y@example.org', '--password', 'a long enough secret');
    assert.equal(y.code, 0, 'the refused address was not half-created');
  });

  it('connects an ICS feed for a member and lists its calendar; refuses a page that is no calendar', async () => {
    const feed = createServer((request, response) => {
      if (request.url === '/team.ics') {
        response
          .writeHead(200, { 'content-type': 'text/calendar' })
          .end(
            'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nX-WR-CALNAME:Team days\r\nEND:VCALENDAR\r\n',
          );
      } else response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    });
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(feed.address() as { port: number }).port}`;
    try {
      const env = { ICS_ALLOW_PRIVATE_NETWORKS: 'true' };
      const ws = await cli('workspace', 'create', '--name', 'Feeds', '--owner', 'owner@example.org');
      const ok = await connectIcs(env, ws.out, `${base}/team.ics`);
      assert.equal(ok.code, 0, ok.err);
      assert.match(ok.out, /^acc_[\w-]{22}\ncal_[\w-]{22}\tTeam days$/);
      const bad = await connectIcs(env, ws.out, `${base}/page.html`);
      assert.equal(bad.code, 1);
      assert.match(bad.err, /^error: invalid_request: /);
      const guarded = await connectIcs({}, ws.out, `${base}/team.ics`);
      assert.equal(guarded.code, 1, 'private addresses are refused unless allowed');
      const missing = await cli(
        'account',
        'connect-caldav',
        '--email',
        'owner@example.org',
        '--workspace',
        ws.out,
        '--url',
        base,
      );
      assert.equal(missing.code, 2);
      assert.match(missing.err, /--username is required/);
    } finally {
      await new Promise((resolve) => feed.close(resolve));
    }
  });

  it('reports a bad configuration with exit code 78', async () => {
    const out: string[] = [];
    const code = await runCli(['migrate'], {
      env: { DATABASE_URL: 'mysql://nope' },
      out: (l) => out.push(l),
      err: (l) => out.push(l),
    });
    assert.equal(code, 78);
    assert.match(out.join('\n'), /DATABASE_URL must be a postgres/);
  });

  it('rotates the token signing key, printing the new key id', async () => {
    const first = await cli('keys', 'rotate');
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /^test-[\w-]+$/);
    const second = await cli('keys', 'rotate');
    assert.notEqual(second.out, first.out);
  });

  it('prints usage for help', async () => {
    const help = await cli('--help');
    assert.equal(help.code, 0);
    assert.match(help.out, /workspace add-member --workspace ID --email E --role owner\|admin\|member/);
  });
});
