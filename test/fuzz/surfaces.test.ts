/**
 * Property-based fuzzing of the surfaces, on both engines: malformed tool arguments, REST query
 * strings and JSON-RPC envelopes thrown at a real app. Whatever comes in, nothing answers 5xx,
 * and every refusal carries a code of the catalogue (problem+json, or a tool error's body).
 * Each property runs for a few seconds at most; the case count is printed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { errorCatalogue } from '../../src/errors.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { type ListedTool, listToolsRaw, rpc, sseMessages } from '../helpers/mcpSession.ts';
import { memoryProvider, occurrence, seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const codes = new Set(Object.keys(errorCatalogue));
/** Per property; four properties per engine keep the suite within a minute. */
const timeLimitMs = 6_000;
const casesRun: string[] = [];

/** Strings that break naive code: controls (NUL), lone surrogates, huge, RTL, look-alike syntax. */
const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({
    unit: fc.constantFrom('\u0000', '\u0008', '\ud800', '\u202e', '%', '\\', '"', "'", ',', ';', ' '),
  }),
  fc.constantFrom(
    '2026-03-01T00:00:00Z',
    '2026-03-29T02:30:00',
    '2026-02-30T00:00:00+01:00',
    '+275760-09-13T00:00:00Z',
    'Europe/Berlin',
    'Etc/GMT+14',
    'cal_',
    'evt_AAAA',
    'x'.repeat(5000),
    '',
  ),
);
const nastyValue = fc.oneof(
  nastyString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(nastyString, { maxLength: 30 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** A problem+json answer, a JSON-RPC error, or a tool result: refusals must name a catalogue code. */
function assertStableAnswer(status: number, body: unknown, what: string): void {
  assert.ok(status < 500, `${what} → HTTP ${status}: ${JSON.stringify(body)?.slice(0, 500)}`);
  if (status >= 400 && body !== null && typeof body === 'object' && 'code' in body) {
    assert.ok(codes.has(String(body.code)), `${what} → unknown code ${String(body.code)}`);
  }
  const result = (body as { result?: { isError?: boolean; content?: Array<{ text?: string }> } } | undefined)
    ?.result;
  if (result?.isError === true) {
    const error = (JSON.parse(result.content?.[0]?.text ?? '{}') as { error?: { code?: string } }).error;
    assert.ok(
      codes.has(String(error?.code)),
      `${what} → tool error without a catalogue code: ${result.content?.[0]?.text}`,
    );
  }
}

async function post(t: TestApp, body: string, token: string, contentType = 'application/json') {
  const response = await fetch(`${t.ctx.config.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': contentType,
      accept: 'application/json, text/event-stream',
    },
    body,
  });
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  // A batch may be answered with several messages on one stream: each is checked.
  if (response.status < 500 && type.startsWith('text/event-stream'))
    return { status: response.status, messages: sseMessages(text) };
  return { status: response.status, messages: [/json/.test(type) && text !== '' ? JSON.parse(text) : text] };
}

for (const engine of await enginesUnderTest()) {
  describe(`fuzzing the surfaces (${engine.name})`, { skip: engine.skip }, () => {
    let t: TestApp;
    let mcpToken: string;
    let restToken: string;
    let calendarIds: string[];
    let tools: ListedTool[];

    before(async () => {
      const berlin = 'Europe/Berlin';
      t = await startTestApp({
        database: await engine.open(),
        listen: true,
        providers: {
          google: memoryProvider(
            'google',
            new Map([
              [
                'work',
                {
                  name: 'Work',
                  timeZone: berlin,
                  occurrences: [
                    occurrence({ start: '2026-03-02T09:00:00', timeZone: berlin, title: 'Planning' }),
                  ],
                },
              ],
              ['home', { name: 'Home', occurrences: [] }],
            ]),
          ),
        },
      });
      const userId = await seedUser(t.ctx.db, 'fuzz@example.test');
      const workspaceId = await seedWorkspace(t.ctx.db, 'Fuzz', [[userId, 'owner']]);
      calendarIds = await seedMemoryAccount(t.ctx, { userId, workspaceId }, t.ctx.providers.google!);
      const calendars = calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'full' as const }));
      const scopes = ['calendar:read', 'calendar:write', 'calendar:rsvp'] as const;
      mcpToken = (await grantToken(t.ctx, { userId, workspaceId, calendars, scopes: [...scopes] })).token;
      restToken = (await grantToken(t.ctx, { userId, workspaceId, calendars, resource: 'v1' })).token;
      tools = await listToolsRaw(`${t.ctx.config.baseUrl}/mcp`, mcpToken);
    });
    after(() => t?.close());

    /** Checks `check` on generated inputs until the time limit; records how many ran. */
    const run = async <T>(name: string, inputs: fc.Arbitrary<T>, check: (input: T) => Promise<void>) => {
      let cases = 0;
      const property = fc.asyncProperty(inputs, async (input) => {
        cases += 1;
        await check(input);
      });
      await fc.assert(property, {
        numRuns: 100_000,
        interruptAfterTimeLimit: timeLimitMs,
        markInterruptAsFailure: false,
      });
      casesRun.push(`${engine.name} ${name}: ${cases}`);
      assert.ok(cases > 0);
    };

    it('tool arguments: any value in any argument, extra and missing ones', async () => {
      const argumentsFor = (tool: ListedTool) => {
        const known = Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>);
        const plausible = fc.oneof(nastyValue, fc.constantFrom(...calendarIds), fc.constant(calendarIds));
        return fc.tuple(
          fc.constant(tool.name),
          fc.record(Object.fromEntries(known.map((key) => [key, plausible])), { requiredKeys: [] }),
          fc.dictionary(fc.string({ maxLength: 12 }), nastyValue, { maxKeys: 3 }),
        );
      };
      const call = fc.oneof(
        ...tools.map(argumentsFor),
        fc.tuple(nastyString, fc.dictionary(fc.string(), nastyValue), fc.constant({})),
      );
      await run('tool arguments', call, async ([name, args, extra]) => {
        const message = rpc('tools/call', { name, arguments: { ...args, ...extra } });
        const reply = await post(t, JSON.stringify(message), mcpToken);
        for (const body of reply.messages)
          assertStableAnswer(reply.status, body, `${name}(${JSON.stringify(args).slice(0, 300)})`);
      });
    });

    it('REST query strings: known and unknown names, any values, repeated', async () => {
      const names = fc.constantFrom('calendar_id', 'start', 'end', 'time_zone', 'limit', 'cursor', 'q', '');
      const pairs = fc.array(fc.tuple(fc.oneof(names, nastyString), nastyString), { maxLength: 8 });
      await run(
        'REST query strings',
        fc.tuple(fc.constantFrom('/v1/events', '/v1/calendars'), pairs),
        async ([path, query]) => {
          const search = new URLSearchParams(query.map(([k, v]) => [String(k), String(v)])).toString();
          const response = await t.app.inject({
            method: 'GET',
            url: `${path}?${search}`,
            headers: { authorization: `Bearer ${restToken}` },
          });
          const body = /json/.test(String(response.headers['content-type']))
            ? response.json()
            : response.body;
          assertStableAnswer(response.statusCode, body, `GET ${path}?${search.slice(0, 300)}`);
        },
      );
    });

    it('JSON-RPC envelopes: any JSON, broken JSON, wrong content types', async () => {
      const envelope = fc.record(
        {
          jsonrpc: fc.oneof(fc.constant('2.0'), nastyValue),
          id: fc.oneof(fc.integer(), fc.string(), nastyValue),
          method: fc.oneof(
            fc.constantFrom(
              'tools/call',
              'tools/list',
              'initialize',
              'ping',
              'resources/list',
              'notifications/initialized',
            ),
            nastyString,
          ),
          params: fc.oneof(fc.constant(undefined), nastyValue, fc.dictionary(fc.string(), nastyValue)),
        },
        { requiredKeys: [] },
      );
      const body = fc.oneof(
        envelope.map((e) => JSON.stringify(e)),
        fc.array(envelope, { maxLength: 3 }).map((e) => JSON.stringify(e)),
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.string(),
      );
      const contentType = fc.constantFrom(
        'application/json',
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      );
      await run('JSON-RPC envelopes', fc.tuple(body, contentType), async ([text, type]) => {
        const reply = await post(t, text, mcpToken, type);
        for (const message of reply.messages)
          assertStableAnswer(reply.status, message, `POST /mcp (${type}) ${text.slice(0, 300)}`);
      });
    });
  });
}

after(() => {
  process.stdout.write(`fuzz cases: ${casesRun.join(', ')}\n`);
});
