/**
 * Forgotten passwords: the address form (one answer whether or not an account uses the address,
 * the e-mail sent after the answer) and the page behind the e-mailed or operator-issued link.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { sendWithin } from '../../mail/delivery.ts';
import { passwordResetMessage } from '../../mail/messages.ts';
import { passwordResetLink } from '../../people/links.ts';
import {
  completePasswordReset,
  findPasswordReset,
  passwordResetTtlMs,
  requestPasswordReset,
} from '../../people/passwordReset.ts';
import { passwordMinLength } from '../../people/passwords.ts';
import { correctable, formOf, sendHtml } from '../forms.ts';
import { html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { signInLimit } from './signIn.ts';

type TokenQuery = { Querystring: { token?: string } };

const askAnAdministrator = html`<p>This service sends no e-mail, so it cannot send you a link. Ask its administrator for a single-use link to choose a new password.</p>
<p><a href="/login">Back to sign in</a></p>`;

export function registerPasswordResetPages(app: FastifyInstance, ctx: AppContext): void {
  const forgotForm = (request: FastifyRequest, error?: string) =>
    page(
      { title: 'Forgot your password?', csrfToken: request.visitor.csrfToken, error },
      ctx.mailer === undefined
        ? askAnAdministrator
        : html`<p>Enter the e-mail address of your account: a link to choose a new password is sent to it.</p>
<form method="post" action="/password/forgot">
  ${csrfField(request.visitor.csrfToken)}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required>
  <div><button type="submit" class="primary">Send the link</button></div>
</form>`,
    );

  app.get('/password/forgot', { config: { page: true } }, async (request, reply) =>
    sendHtml(reply, forgotForm(request)),
  );

  app.post('/password/forgot', { config: { page: true, rateLimit: signInLimit } }, async (request, reply) => {
    const { mailer } = ctx;
    if (mailer === undefined) return sendHtml(reply, forgotForm(request));
    let reset: Awaited<ReturnType<typeof requestPasswordReset>>;
    try {
      reset = await requestPasswordReset(ctx.db, ctx.clock, formOf(request.body).email);
    } catch (error) {
      const e = correctable(error);
      return sendHtml(reply, forgotForm(request, e.message), e.status);
    }
    if (reset !== undefined) {
      const message = passwordResetMessage({
        to: reset.email,
        baseUrl: ctx.config.baseUrl,
        link: passwordResetLink(ctx.config.baseUrl, reset.token),
        expiresAt: reset.expiresAt,
        validForMs: passwordResetTtlMs,
      });
      // Not awaited: waiting would make the answer slower for addresses that have an account.
      void sendWithin(mailer, message, (failure) =>
        request.log.warn({ mail: failure }, 'password reset e-mail not sent'),
      );
    }
    return sendHtml(
      reply,
      page(
        { title: 'Check your e-mail', csrfToken: request.visitor.csrfToken },
        html`<p>If an account uses this address, a link to choose a new password is on its way. It works once, within 30 minutes.</p>
<p><a href="/login">Back to sign in</a></p>`,
      ),
    );
  });

  const resetForm = async (request: FastifyRequest, token: string, error?: string) => {
    const { email } = await findPasswordReset(ctx.db, ctx.clock, token);
    return page(
      { title: 'Choose a new password', csrfToken: request.visitor.csrfToken, error },
      html`<p>For the account <strong>${email}</strong>. Every place it is signed in will be signed out.</p>
<form method="post" action="/password/reset">
  ${csrfField(request.visitor.csrfToken)}
  <input type="hidden" name="token" value="${token}">
  <input type="hidden" name="email" autocomplete="username" value="${email}">
  <label for="password">New password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${passwordMinLength}">
  <p class="muted">At least ${passwordMinLength} characters.</p>
  <div><button type="submit" class="primary">Set the new password</button></div>
</form>`,
    );
  };

  app.get<TokenQuery>('/password/reset', { config: { page: true } }, async (request, reply) =>
    sendHtml(reply, await resetForm(request, request.query.token ?? '')),
  );

  app.post('/password/reset', { config: { page: true, rateLimit: signInLimit } }, async (request, reply) => {
    const form = formOf(request.body);
    const token = typeof form.token === 'string' ? form.token : '';
    try {
      await completePasswordReset(ctx.db, ctx.clock, token, form.password);
    } catch (error) {
      const e = correctable(error);
      return sendHtml(reply, await resetForm(request, token, e.message), e.status);
    }
    // The browser's own session, if any, was one of those ended (or belongs to someone else).
    return sendHtml(
      reply,
      page(
        { title: 'Password changed', csrfToken: request.visitor.csrfToken },
        html`<p>Your new password is set, and every session of your account was signed out.</p>
<p><a href="/login">Sign in</a> with the new password.</p>`,
      ),
    );
  });
}
