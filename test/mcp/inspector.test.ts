/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector --cli`) as a separate process against
 * the listening service: Streamable HTTP, the access token as an `Authorization` header, both
 * protocol eras, `tools/list` and `tools/call search_events`, JSON output parsed and checked
 * exactly. The child runs with a home of its own (nothing read from or written to the real one)
 * and a guard that refuses and records any connection that is not to loopback.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import {
  assertMatchesSchema,
  type ListedTool,
  readToolNames,
  structured,
  type ToolResult,
} from '../helpers/mcpSession.ts';
import { memoryProvider, occurrence, seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const inspectorBin = fileURLToPath(new URL('../../node_modules/.bin/mcp-inspector', import.meta.url));
const berlin = 'Europe/Berlin';
const { version: serviceVersion } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

/** Loaded into the child before the inspector: any connection that is not to loopback is refused and noted. */
const networkGuard = `
import net from 'node:net';
import { appendFileSync } from 'node:fs';
const log = process.env.E2E_NETWORK_LOG;
const loopback = (host) =>
  host === undefined || host === null || host === 'localhost' || host === '::1' || /^127\\./.test(host);
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  let options = args[0];
  if (Array.isArray(options)) options = options[0];
  if (options === null || typeof options !== 'object') options = { port: args[0], host: typeof args[1] === 'string' ? args[1] : undefined };
  if (options.path === undefined && !loopback(options.host)) {
    appendFileSync(log, options.host + ':' + options.port + '\\n');
    throw new Error('e2e: network access outside loopback refused (' + options.host + ')');
  }
  return connect.apply(this, args);
};
`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('the MCP Inspector CLI against /mcp', { concurrency: true }, () => {
  let t: TestApp;
  let mcp: string;
  let work: string;
  let token: string;
  let home: string;
  let networkLog: string;
  let guard: string;

  before(async () => {
    const provider = memoryProvider(
      'google',
      new Map([
        [
          'work',
          {
            name: 'Work',
            timeZone: berlin,
            occurrences: [
              occurrence({
                providerEventId: 'planning',
                start: '2026-03-02T10:00:00',
                timeZone: berlin,
                title: 'Quarterly planning',
                description: 'Budget review',
              }),
              occurrence({
                providerEventId: 'standup',
                start: '2026-03-02T09:00:00',
                timeZone: berlin,
                title: 'Standup',
              }),
            ],
          },
        ],
      ]),
    );
    t = await startTestApp({ listen: true, providers: { google: provider } });
    mcp = `${t.ctx.config.baseUrl}/mcp`;
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [[userId, 'owner']]);
    [work] = (await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider)) as [string];
    ({ token } = await grantToken(t.ctx, {
      userId,
      workspaceId,
      calendars: [{ calendarId: work, detailLevel: 'full' }],
    }));
    home = await mkdtemp(join(tmpdir(), 'inspector-home-'));
    networkLog = join(home, 'network.log');
    guard = join(home, 'network-guard.mjs');
    await writeFile(networkLog, '');
    await writeFile(guard, networkGuard);
  });
  after(async () => {
    await t?.close();
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  /** Runs `mcp-inspector --cli` with these arguments and a clean, offline environment. */
  function inspector(args: string[]): Promise<Run> {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: home,
      MCP_CATALOG_PATH: join(home, 'mcp.json'),
      MCP_CLIENT_CONFIG_PATH: join(home, 'client.json'),
      E2E_NETWORK_LOG: networkLog,
      NODE_OPTIONS: `--import=${pathToFileURL(guard).href}`,
      NO_COLOR: '1',
    };
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [inspectorBin, '--cli', ...args],
        { env, timeout: 120_000, maxBuffer: 4 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  const withToken = (era: 'legacy' | 'modern') => [
    mcp,
    '--transport',
    'http',
    '--protocol-era',
    era,
    '--header',
    `Authorization: Bearer ${token}`,
    '--format',
    'json',
  ];

  const searchArgs = (calendarId: string, query: string) => [
    '--method',
    'tools/call',
    '--tool-name',
    'search_events',
    '--tool-arg',
    `calendarIds=${JSON.stringify([calendarId])}`,
    `query=${query}`,
    'start=2026-03-02T00:00:00+01:00',
    'end=2026-03-03T00:00:00+01:00',
    'limit=10',
  ];

  const json = (run: Run) => {
    assert.equal(run.code, 0, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
    return JSON.parse(run.stdout) as { result: unknown };
  };

  it('lists the read tools and calls search_events (both protocol eras), offline', async () => {
    const [legacyList, legacyCall, modernCall] = await Promise.all([
      inspector([...withToken('legacy'), '--method', 'tools/list']),
      inspector([...withToken('legacy'), ...searchArgs(work, 'PLANNING budget')]),
      inspector([...withToken('modern'), ...searchArgs(work, 'PLANNING budget')]),
    ]);

    const { tools } = json(legacyList).result as { tools: ListedTool[] };
    assert.deepEqual(
      tools.map((tool) => tool.name),
      readToolNames,
    );
    const search = tools.find((tool) => tool.name === 'search_events')!;
    assert.deepEqual(search.inputSchema.required, ['calendarIds', 'query', 'start', 'end']);
    assert.equal(search.inputSchema.additionalProperties, false);

    const ids = createEventIds(t.ctx.secretKey);
    const expected = {
      ok: true,
      termine: [
        {
          eventId: ids.eventId(work, 'planning'),
          calendarId: work,
          occurrenceId: ids.occurrenceId(work, 'planning', undefined),
          title: 'Quarterly planning',
          description: 'Budget review',
          start: '2026-03-02T10:00:00+01:00',
          timeZone: berlin,
          duration: 'PT1H',
          showWithoutTime: false,
          status: 'confirmed',
          freeBusyStatus: 'busy',
          canRespond: false,
          canEdit: false,
          editBlockedReason: 'access_denied',
        },
      ],
      matched: 1,
      truncated: false,
      searchedFields: ['title', 'description', 'categories', 'keywords'],
    };
    for (const run of [legacyCall, modernCall]) {
      const content = structured(json(run).result as ToolResult);
      assert.deepEqual(content, expected);
      assertMatchesSchema(search.outputSchema, content);
    }
    // The modern era's result carries the server's identity in _meta; the legacy one does not.
    assert.deepEqual((json(modernCall).result as { _meta?: unknown })._meta, {
      'io.modelcontextprotocol/serverInfo': { name: 'calendar-access-service', version: serviceVersion },
    });
    assert.equal((json(legacyCall).result as { _meta?: unknown })._meta, undefined);

    assert.equal(await readFile(networkLog, 'utf8'), '', 'no connection left loopback');
  });

  it('reports a tool error of search_events as one (exit 5), with the service error body', async () => {
    const run = await inspector([...withToken('legacy'), ...searchArgs('cal_unknown', 'planning')]);
    assert.equal(run.code, 5, run.stderr);
    const result = JSON.parse(run.stdout).result as ToolResult;
    assert.equal(result.isError, true);
    assert.deepEqual(JSON.parse(result.content[0]!.text), {
      error: {
        code: 'calendar_not_permitted',
        message:
          'These calendar ids are unknown to this grant: use the ids list_calendars returns (GET /v1/calendars on REST), not calendar names.',
        calendarIds: ['cal_unknown'],
      },
    });
    assert.equal(JSON.parse(run.stderr.trim().split('\n').at(-1)!).error.code, 'tool_is_error');
  });

  it('without a token meets the 401 and does not pretend to be signed in (exit 3, auth_required)', async () => {
    const run = await inspector([
      mcp,
      '--transport',
      'http',
      '--stored-auth-only',
      '--format',
      'json',
      '--method',
      'tools/list',
    ]);
    assert.equal(run.code, 3, `stdout: ${run.stdout}\nstderr: ${run.stderr}`);
    assert.equal(run.stdout, '');
    assert.equal(JSON.parse(run.stderr.trim().split('\n').at(-1)!).error.code, 'auth_required');
    assert.equal(await readFile(networkLog, 'utf8'), '', 'no connection left loopback');
  });
});
