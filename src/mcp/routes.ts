/**
 * `/mcp` behind bearer verification. The MCP server itself arrives with the MCP issue; until then
 * an authenticated request learns only that no method is offered yet.
 */
import type { FastifyInstance } from 'fastify';
import { requireBearer } from '../auth/requireBearer.ts';
import type { Authorization } from '../auth/setup.ts';

export function registerMcpRoutes(app: FastifyInstance, auth: Authorization): void {
  const mcp = auth.server.resources.mcp;
  app.post('/mcp', { preHandler: requireBearer(auth.verifier, mcp, []) }, async (request) => ({
    jsonrpc: '2.0',
    id: (request.body as { id?: unknown } | undefined)?.id ?? null,
    error: { code: -32601, message: 'Method not found' },
  }));
}
