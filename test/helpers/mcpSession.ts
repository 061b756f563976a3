/**
 * `/mcp` at the wire for end-to-end tests: raw JSON-RPC POSTs read back whether the SDK answered
 * with JSON or an SSE stream, tool results taken apart (structured content, error bodies), JSON
 * Schema checks of a tool's output, and an OAuth client provider whose browser step signs in and
 * consents through the real pages with the calendars and levels the test chooses.
 */
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import type { TestApp } from './app.ts';
import { TestOAuthProvider } from './mcpOAuth.ts';
import { consentAction, reachConsent, redirectUri, submit } from './oauth.ts';
import { PageClient } from './pageClient.ts';

/** What Streamable HTTP requires a client to accept. */
export const acceptBoth = 'application/json, text/event-stream';

/** The tools a token with calendar:read alone is offered, in the order tools/list gives them. */
export const readToolNames = [
  'list_calendars',
  'get_current_time',
  'search_events',
  'list_events',
  'get_event',
  'get_availability',
  'find_meeting_times',
  'get_event_guests',
];

export interface McpReply {
  status: number;
  headers: Headers;
  /** The one JSON body, or the one message of an SSE stream; undefined for an empty body. */
  body: unknown;
}

/** The JSON messages of an SSE stream, in order. */
export const sseMessages = (text: string): unknown[] =>
  text
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data) as unknown);

/** Reads an answer of `/mcp`: JSON (problem+json, JSON-RPC) or an SSE stream of exactly one message. */
export async function readMcpReply(response: Response): Promise<McpReply> {
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  let body: unknown;
  if (contentType.startsWith('text/event-stream')) {
    const messages = sseMessages(text);
    assert.equal(messages.length, 1, `one message on the stream, got: ${text}`);
    body = messages[0];
  } else {
    body = text === '' ? undefined : JSON.parse(text);
  }
  return { status: response.status, headers: response.headers, body };
}

export interface PostOptions {
  token?: string;
  headers?: Record<string, string>;
}

/** POSTs one JSON-RPC message (or a raw body string) to `/mcp` as a 2025-era client would. */
export async function postMcp(url: string, message: unknown, options: PostOptions = {}): Promise<McpReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: acceptBoth,
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...options.headers,
    },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });
  return readMcpReply(response);
}

let nextId = 1;

export const rpc = (method: string, params?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method,
  ...(params === undefined ? {} : { params }),
});

export interface ToolResult {
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** The `result` of a JSON-RPC answer that must have succeeded at the HTTP and protocol level. */
export function rpcResult<T>(reply: McpReply): T {
  assert.equal(reply.status, 200, `HTTP ${reply.status}: ${JSON.stringify(reply.body)}`);
  const message = reply.body as { result?: T; error?: unknown };
  assert.equal(message.error, undefined, `JSON-RPC error: ${JSON.stringify(message.error)}`);
  assert.ok(message.result !== undefined, 'a JSON-RPC result');
  return message.result;
}

/** `tools/call` over raw HTTP; returns the tool result (which may be a tool error). */
export async function callToolRaw(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  return rpcResult<ToolResult>(await postMcp(url, rpc('tools/call', { name, arguments: args }), { token }));
}

export async function listToolsRaw(url: string, token: string): Promise<ListedTool[]> {
  return rpcResult<{ tools: ListedTool[] }>(await postMcp(url, rpc('tools/list'), { token })).tools;
}

/** A successful tool result: its structured content, checked to equal the JSON text next to it. */
export function structured(result: ToolResult): Record<string, unknown> {
  assert.notEqual(result.isError, true, `tool error: ${result.content[0]?.text}`);
  assert.ok(result.structuredContent, 'structuredContent is present');
  assert.equal(result.content[0]?.type, 'text');
  assert.deepEqual(
    JSON.parse(result.content[0]!.text),
    result.structuredContent,
    'the text content is the same JSON',
  );
  return result.structuredContent;
}

/** A tool error result: exactly one text content holding `{"error":{…}}`; returns the error object. */
export function toolError(result: ToolResult): Record<string, unknown> {
  assert.equal(result.isError, true, `expected a tool error, got ${JSON.stringify(result)}`);
  assert.equal(result.structuredContent, undefined);
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0]?.type, 'text');
  const body = JSON.parse(result.content[0]!.text) as { error: Record<string, unknown> };
  assert.deepEqual(Object.keys(body), ['error']);
  return body.error;
}

const ajv = new Ajv({ allErrors: true, strict: true });

/** Validates a value against a JSON Schema (as a client would validate structuredContent). */
export function assertMatchesSchema(schema: Record<string, unknown> | undefined, value: unknown): void {
  assert.ok(schema, 'the tool lists an outputSchema');
  const validate = ajv.compile(schema);
  if (!validate(value))
    assert.fail(`does not match its schema: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`);
}

/** A schema without its `description`s (words for a model), to compare the rules exactly. */
export function withoutDescriptions(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !(key === 'description' && typeof value === 'string'))
      .map(([key, value]) => [
        key,
        key === 'properties' ? propertiesWithout(value) : withoutDescriptions(value),
      ]),
  );
}

const propertiesWithout = (properties: unknown) =>
  Object.fromEntries(Object.entries(properties as object).map(([k, v]) => [k, withoutDescriptions(v)]));

export interface ConsentChoice {
  /** Calendar id → detail level chosen on the consent page. */
  calendars: Record<string, 'full' | 'titles' | 'busy'>;
  privateDetails?: boolean;
}

/**
 * An OAuth client provider (both SDKs accept it) whose browser step signs the person in and
 * consents with `choice`; `consentPages` keeps every consent page shown.
 */
export function consentingProvider(
  t: TestApp,
  options: { email: string; clientName: string; choice: ConsentChoice },
): { provider: TestOAuthProvider; consentPages: string[] } {
  const base = t.ctx.config.baseUrl;
  const consentPages: string[] = [];
  const provider = new TestOAuthProvider({
    redirectUrl: redirectUri,
    clientMetadata: {
      client_name: options.clientName,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    authorize: async (url) => {
      const browser = new PageClient(t.app);
      const step = await reachConsent(t, browser, options.email, { url, state: '', verifier: '' });
      if (step.location) return step.location;
      const page = step.page.body;
      consentPages.push(page);
      const workspace = /name="workspace" value="([^"]+)"/.exec(page)?.[1] ?? '';
      const form: Record<string, string | string[]> = {
        workspace,
        calendar: Object.keys(options.choice.calendars),
      };
      for (const [id, level] of Object.entries(options.choice.calendars)) form[`level_${id}`] = level;
      if (options.choice.privateDetails) form.privateDetails = 'on';
      const done = await submit(browser, consentAction(page), form, base);
      assert.ok(
        done.location,
        `consent did not redirect: ${done.page.statusCode} ${done.page.body.slice(0, 300)}`,
      );
      return done.location;
    },
  });
  return { provider, consentPages };
}

export interface SeenRequest {
  method: string;
  path: string;
  status: number;
  /** The MCP-Protocol-Version header sent, if any. */
  protocolVersion: string | null;
  /** The JSON-RPC method of a POST body, if any. */
  rpcMethod: string | undefined;
  /** A POST's answer as the bytes came (read from a copy of the response): what left the service. */
  answer: Promise<string> | undefined;
}

/** A fetch for the SDKs that records every request it makes and how it was answered (a POST's answer whole). */
export function recordingFetch(): { fetchFn: typeof fetch; seen: SeenRequest[] } {
  const seen: SeenRequest[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    let rpcMethod: string | undefined;
    if (typeof init?.body === 'string') {
      try {
        rpcMethod = (JSON.parse(init.body) as { method?: string }).method;
      } catch {
        rpcMethod = undefined;
      }
    }
    const response = await fetch(input, init);
    // A stream the client aborts ends its copy too: nothing more came.
    const answer =
      init?.method === 'POST'
        ? response
            .clone()
            .text()
            .catch(() => '')
        : undefined;
    seen.push({
      method: init?.method ?? (input instanceof Request ? input.method : 'GET'),
      path: url.pathname,
      status: response.status,
      protocolVersion: headers.get('mcp-protocol-version'),
      rpcMethod,
      answer,
    });
    return response;
  };
  return { fetchFn, seen };
}
