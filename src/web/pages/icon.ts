/** The site's icon: a calendar page drawn in SVG, cached a day; `/favicon.ico` for clients that ask anyway. */
import type { FastifyInstance } from 'fastify';

const icon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="3" y="5" width="26" height="24" rx="4" fill="#1f3a5f"/><rect x="6" y="12" width="20" height="14" rx="2" fill="#fff"/><rect x="9" y="2" width="3" height="6" rx="1.5" fill="#1f3a5f"/><rect x="20" y="2" width="3" height="6" rx="1.5" fill="#1f3a5f"/><rect x="9" y="15" width="5" height="4" fill="#1f3a5f"/></svg>`;

export function registerIcon(app: FastifyInstance): void {
  app.get('/favicon.svg', async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(icon),
  );
  app.get('/favicon.ico', async (_request, reply) => reply.redirect('/favicon.svg', 301));
}
