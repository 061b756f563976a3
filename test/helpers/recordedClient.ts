/**
 * A real MCP client whose every answer is kept as it came over the wire: `call` checks a tool's
 * result against the output schema `tools/list` gave and returns the bytes that carried it, so a
 * test can assert on what left the service, not only on what the SDK parsed.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  assertMatchesSchema,
  type ListedTool,
  recordingFetch,
  structured,
  type ToolResult,
} from './mcpSession.ts';

type Args = Record<string, unknown>;

export interface RecordedClient {
  client: Client;
  /** A successful answer, checked against the listed output schema, with the bytes that carried it. */
  call(name: string, args: Args): Promise<{ content: Args; bytes: string }>;
  close(): Promise<void>;
}

/** The SDK's client named `name`, connected to `mcpUrl` with `token` (through `fetchFn` when given). */
export async function connectedClient(
  mcpUrl: string,
  token: string,
  name: string,
  fetchFn?: typeof fetch,
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      ...(fetchFn && { fetch: fetchFn }),
    }),
  );
  return client;
}

export async function recordedClient(mcpUrl: string, token: string, name: string): Promise<RecordedClient> {
  const { fetchFn, seen } = recordingFetch();
  const client = await connectedClient(mcpUrl, token, name, fetchFn);
  const tools = new Map<string, ListedTool>();
  for (const tool of (await client.listTools()).tools) tools.set(tool.name, tool as ListedTool);
  return {
    client,
    async call(tool, args) {
      const before = seen.length;
      const result = (await client.callTool({ name: tool, arguments: args })) as unknown as ToolResult;
      const content = structured(result);
      assertMatchesSchema(tools.get(tool)!.outputSchema, content);
      const answers = await Promise.all(seen.slice(before).map((s) => s.answer ?? ''));
      return { content, bytes: answers.join('') };
    },
    close: () => client.close(),
  };
}
