/** One `tools/list` request to /mcp as a 2025-era client sends it (stateless: no session needed). */
export const mcpToolsList = (url: string, token?: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
