/** The first owner's set-up page and the invitation page: both reached by single-use links. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import {
  acceptInvitation,
  checkFirstRunToken,
  completeFirstRun,
  findInvitation,
} from '../../people/onboarding.ts';
import { passwordMinLength } from '../../people/passwords.ts';
import { correctable, type Form, formOf, sendHtml } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { signIn } from './signIn.ts';

type TokenQuery = { Querystring: { token?: string } };

const text = (form: Form, name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');

const passwordField = html`<label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${passwordMinLength}">
  <p class="muted">At least ${passwordMinLength} characters.</p>`;

export function registerOnboardingPages(app: FastifyInstance, ctx: AppContext): void {
  const setupForm = (request: FastifyRequest, token: string, form: Form, error?: string) =>
    page(
      { title: 'Set up Calendar Access', csrfToken: request.visitor.csrfToken, error },
      html`<p>Create the first owner account and its workspace. This link works once.</p>
<form method="post" action="/setup">
  ${csrfField(request.visitor.csrfToken)}
  <input type="hidden" name="token" value="${token}">
  <label for="name">Name</label>
  <input id="name" name="name" type="text" autocomplete="name" required value="${text(form, 'name')}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${text(form, 'email')}">
  ${passwordField}
  <label for="workspaceName">Workspace name</label>
  <input id="workspaceName" name="workspaceName" type="text" required value="${text(form, 'workspaceName')}">
  <div><button type="submit" class="primary">Create owner account</button></div>
</form>`,
    );

  app.get<TokenQuery>('/setup', { config: { page: true } }, async (request, reply) => {
    const token = request.query.token ?? '';
    await checkFirstRunToken(ctx.db, ctx.clock, token);
    return sendHtml(reply, setupForm(request, token, {}));
  });

  app.post('/setup', { config: { page: true } }, async (request, reply) => {
    const form = formOf(request.body);
    let userId: string;
    try {
      ({ userId } = await completeFirstRun(ctx.db, ctx.clock, form.token, {
        email: form.email,
        password: form.password,
        name: form.name,
        workspaceName: form.workspaceName,
      }));
    } catch (error) {
      const e = correctable(error);
      return sendHtml(reply, setupForm(request, text(form, 'token'), form, e.message), e.status);
    }
    await signIn(ctx, request, reply, userId);
    return reply.redirect('/admin', 303);
  });

  const invitationForm = async (request: FastifyRequest, token: string, form: Form, error?: string) => {
    const invitation = await findInvitation(ctx.db, ctx.clock, token);
    const body: Html = html`<p>You are invited to join <strong>${invitation.workspaceName}</strong> as
  ${invitation.role} with the address <strong>${invitation.email}</strong>.</p>
<form method="post" action="/invitation">
  ${csrfField(request.visitor.csrfToken)}
  <input type="hidden" name="token" value="${token}">
  <label for="name">Name</label>
  <input id="name" name="name" type="text" autocomplete="name" required value="${text(form, 'name')}">
  ${passwordField}
  <div><button type="submit" class="primary">Join workspace</button></div>
</form>`;
    return page({ title: 'Join a workspace', csrfToken: request.visitor.csrfToken, error }, body);
  };

  app.get<TokenQuery>('/invitation', { config: { page: true } }, async (request, reply) =>
    sendHtml(reply, await invitationForm(request, request.query.token ?? '', {})),
  );

  app.post('/invitation', { config: { page: true } }, async (request, reply) => {
    const form = formOf(request.body);
    let userId: string;
    try {
      ({ userId } = await acceptInvitation(ctx.db, ctx.clock, form.token, {
        password: form.password,
        name: form.name,
      }));
    } catch (error) {
      const e = correctable(error);
      return sendHtml(reply, await invitationForm(request, text(form, 'token'), form, e.message), e.status);
    }
    await signIn(ctx, request, reply, userId);
    return reply.redirect('/account', 303);
  });
}
