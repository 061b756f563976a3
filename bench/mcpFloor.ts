/**
 * The MCP floor: the SDK's handler, as `/mcp` drives it (src/mcp/routes.ts#webRequest), with a
 * server whose tools/call answers the tool result a row's request got, and nothing behind it
 * (no token, no budget, no read). Its ratio to the bare route is what the protocol alone leaves
 * of a bar; the service's row over it is the service's own work per call.
 */
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import type { FastifyInstance } from 'fastify';
import { webRequest } from '../src/mcp/routes.ts';
import { type Answer, toolResult } from './measure.ts';

export async function serveMcpFloor(app: FastifyInstance, path: string, answer: Answer): Promise<void> {
  const result = toolResult(answer);
  const handler = createMcpHandler(
    () => {
      const server = new Server({ name: 'floor', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/call', async () => result);
      return server;
    },
    { legacy: 'stateless', responseMode: 'auto' },
  );
  await app.register(async (floor) => {
    // The body as the service's route takes it: a string, parsed once for the SDK.
    floor.removeAllContentTypeParsers();
    floor.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    floor.post(path, async (request, reply) => {
      const { request: forwarded, parsedBody } = webRequest(`http://127.0.0.1${path}`, request);
      return reply.send(await handler.fetch(forwarded, parsedBody === undefined ? {} : { parsedBody }));
    });
  });
}
