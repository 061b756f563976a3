/** Sign in, sign out, and the start page. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authorization } from '../../auth/setup.ts';
import type { AppContext } from '../../context.ts';
import { authenticate } from '../../people/accounts.ts';
import { endSession, startSession } from '../../people/sessions.ts';
import { correctable, formOf, safeNext, sendHtml } from '../forms.ts';
import { allowFormTarget, redirectOriginAfterSignIn } from '../formTargets.ts';
import { html } from '../html.ts';
import { csrfField, page } from '../layout.ts';

/** Per client address; the password-reset forms share it. */
export const signInLimit = { max: 20, timeWindow: '1 minute' };

export function registerSignInPages(app: FastifyInstance, ctx: AppContext, auth: Authorization): void {
  // Signing in during an authorization request may end (through redirects) at the client.
  const allowClientTarget = async (reply: FastifyReply, next: string) =>
    allowFormTarget(reply, await redirectOriginAfterSignIn(auth.server.provider, next));

  const signInForm = (request: FastifyRequest, values: { email?: string; next?: string; error?: string }) =>
    page(
      { title: 'Sign in', csrfToken: request.visitor.csrfToken, error: values.error },
      html`<form method="post" action="/login">
  ${csrfField(request.visitor.csrfToken)}
  <input type="hidden" name="next" value="${values.next ?? ''}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${values.email ?? ''}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <div><button type="submit" class="primary">Sign in</button></div>
</form>
<p><a href="/password/forgot">Forgot your password?</a></p>`,
    );

  app.get('/', { config: { page: true } }, async (request, reply) =>
    reply.redirect(request.visitor.user ? '/account' : '/login', 303),
  );

  app.get<{ Querystring: { next?: string } }>(
    '/login',
    { config: { page: true } },
    async (request, reply) => {
      const next = safeNext(request.query.next);
      if (request.visitor.user) return reply.redirect(next, 303);
      await allowClientTarget(reply, next);
      return sendHtml(reply, signInForm(request, { next }));
    },
  );

  app.post('/login', { config: { page: true, rateLimit: signInLimit } }, async (request, reply) => {
    const form = formOf(request.body);
    const next = safeNext(form.next);
    let userId: string;
    try {
      userId = await authenticate(ctx.db, ctx.clock, form.email, form.password, request.ip);
    } catch (error) {
      const e = correctable(error);
      if (e.code === 'rate_limited') ctx.metrics.refused('sign_in');
      if (e.retryAfter !== undefined) reply.header('retry-after', String(e.retryAfter));
      const email = typeof form.email === 'string' ? form.email : '';
      await allowClientTarget(reply, next);
      return sendHtml(reply, signInForm(request, { email, next, error: e.message }), e.status);
    }
    await signIn(ctx, request, reply, userId);
    return reply.redirect(next, 303);
  });

  app.post('/logout', { config: { page: true } }, async (request, reply) => {
    if (request.visitor.sessionToken) await endSession(ctx.db, request.visitor.sessionToken);
    return reply.endSession().redirect('/login', 303);
  });
}

/** A new session on every sign-in; any session the browser still held is ended (no fixation). */
export async function signIn(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, userId: string) {
  if (request.visitor.sessionToken) await endSession(ctx.db, request.visitor.sessionToken);
  const token = await startSession(ctx.db, ctx.clock, userId, ctx.config.sessionTtlHours);
  reply.startSession(token);
}
