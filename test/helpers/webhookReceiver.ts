import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback webhook endpoint (for the fake Graph's subscriptions): echoes validation tokens (unless told otherwise) and keeps what it is sent. */
export class WebhookReceiver {
  readonly received: Array<{ path: string; body: { value: Array<Record<string, unknown>> } }> = [];
  readonly validations: string[] = [];
  echo: 'right' | 'wrong' = 'right';
  readonly #server: Server;
  readonly url: string;

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new WebhookReceiver(server);
  }

  private constructor(server: Server) {
    this.#server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.on('request', async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const url = new URL(req.url ?? '/', this.url);
      const validationToken = url.searchParams.get('validationToken');
      if (validationToken !== null) {
        this.validations.push(url.pathname);
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(this.echo === 'right' ? validationToken : 'something else');
        return;
      }
      this.received.push({ path: url.pathname, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(202).end();
    });
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
