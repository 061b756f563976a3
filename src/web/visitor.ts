/**
 * Who is looking at a page: the signed-in user (from the session cookie) and the CSRF binding.
 * Every page route gets `request.visitor`; every state-changing page request must carry a CSRF
 * token bound to the session (or, before sign-in, to a random cookie) — checked here, once.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { constantTimeEqual, mac, randomToken } from '../lib/secrets.ts';
import { resolveSession } from '../people/sessions.ts';
import { canAdminister } from '../policy/roles.ts';
import { findUserById, type User } from '../store/users.ts';
import { workspacesOf } from '../store/workspaces.ts';
import type { SiteUser } from './layout.ts';

export interface Visitor {
  user: SiteUser | undefined;
  sessionToken: string | undefined;
  csrfToken: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    visitor: Visitor;
  }
  interface FastifyContextConfig {
    /** Marks a route as a page for people: HTML errors, visitor, CSRF on unsafe methods. */
    page?: boolean;
  }
}

export interface CookieNames {
  session: string;
  csrf: string;
}

/** `__Host-` cookies cannot be set by subdomains or over plain HTTP; used whenever we are on https. */
export const cookieNames = (secure: boolean): CookieNames =>
  secure ? { session: '__Host-session', csrf: '__Host-csrf' } : { session: 'session', csrf: 'csrf' };

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

export function registerVisitor(app: FastifyInstance, ctx: AppContext): void {
  const secure = ctx.config.baseUrl.startsWith('https:');
  const names = cookieNames(secure);
  const cookieOptions = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure };

  app.decorateRequest('visitor', null as unknown as Visitor);

  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.page !== true) return;
    const sessionToken = request.cookies[names.session];
    const userId = sessionToken ? await resolveSession(ctx.db, ctx.clock, sessionToken) : undefined;
    const found = userId === undefined ? undefined : await findUserById(ctx.db, userId);
    // The navigation offers Admin only to those who administer a workspace.
    const user: SiteUser | undefined = found && {
      ...found,
      administers: (await workspacesOf(ctx.db, found.id)).some((w) => canAdminister(w.role)),
    };
    if (sessionToken !== undefined && user === undefined) reply.clearCookie(names.session, { path: '/' });

    let binding = user !== undefined ? `session:${sessionToken}` : undefined;
    if (binding === undefined) {
      let anonymous = request.cookies[names.csrf];
      if (anonymous === undefined || !/^[A-Za-z0-9_-]{43}$/.test(anonymous)) {
        anonymous = randomToken();
        reply.setCookie(names.csrf, anonymous, cookieOptions);
        request.cookies[names.csrf] = anonymous;
      }
      binding = `anonymous:${anonymous}`;
    }
    const csrfToken = mac(ctx.secretKey, 'csrf', binding);
    request.visitor = { user, sessionToken: user === undefined ? undefined : sessionToken, csrfToken };

    if (!safeMethods.has(request.method)) {
      const sent = (request.body as Record<string, unknown> | undefined)?._csrf;
      if (typeof sent !== 'string' || !constantTimeEqual(sent, csrfToken)) {
        throw new AppError(
          'csrf_invalid',
          'This form has expired or did not come from this site. Reload the page and try again.',
        );
      }
    }
  });

  app.decorateReply('startSession', function (this: FastifyReply, token: string) {
    this.setCookie(names.session, token, { ...cookieOptions, maxAge: ctx.config.sessionTtlHours * 3600 });
    return this;
  });
  app.decorateReply('endSession', function (this: FastifyReply) {
    this.clearCookie(names.session, { path: '/' });
    return this;
  });
}

declare module 'fastify' {
  interface FastifyReply {
    startSession(token: string): FastifyReply;
    endSession(): FastifyReply;
  }
}

/** The signed-in user, or a redirect to sign-in that comes back here afterwards. */
export function requireUser(request: FastifyRequest, reply: FastifyReply): User | undefined {
  const user = request.visitor.user;
  if (user === undefined) {
    const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
    void reply.redirect(`/login${next}`, 303);
  }
  return user;
}
