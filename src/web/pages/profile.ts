/** The person's own page: name, password and the workspaces they belong to, apart from the account page. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { AppError } from '../../errors.ts';
import { tokenHash } from '../../lib/secrets.ts';
import { changePassword, updateName } from '../../people/accounts.ts';
import { passwordMinLength } from '../../people/passwords.ts';
import { canAdminister } from '../../policy/roles.ts';
import type { User } from '../../store/users.ts';
import { workspacesOf } from '../../store/workspaces.ts';
import { fieldError, fieldOf } from '../fieldError.ts';
import { correctable, formOf, sendHtml } from '../forms.ts';
import { html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { requireUser } from '../visitor.ts';

const notices: Record<string, string> = {
  profile: 'Your name was saved.',
  password: 'Your password was changed. Other sessions were signed out.',
};

const fields = ['name', 'currentPassword', 'newPassword'];

type NoticeQuery = { Querystring: { notice?: string } };

export function registerProfilePages(app: FastifyInstance, ctx: AppContext): void {
  /** The page, with an error next to its field (or above the form it concerns when it names none). */
  const profilePage = async (request: FastifyRequest, user: User, notice?: string, error?: AppError) => {
    const csrf = request.visitor.csrfToken;
    const workspaces = await workspacesOf(ctx.db, user.id);
    const field = fieldOf(error, fields);
    const at = (name: string) => fieldError(name, field === name ? error?.message : undefined);
    const [name, current, next] = [at('name'), at('currentPassword'), at('newPassword')];
    return page(
      {
        title: 'Your profile',
        user,
        csrfToken: csrf,
        notice,
        error: error !== undefined && field === undefined ? error.message : undefined,
      },
      html`<p><a href="/account">Back to your account</a></p>
<section>
<h2>Name</h2>
<p>Signed in as <strong>${user.email}</strong>.</p>
<form method="post" action="/account/profile">
  ${csrfField(csrf)}
  <label for="name">Name</label>
  <input id="name" name="name" type="text" autocomplete="name" required value="${user.name}"${name.attributes}>
  ${name.line}
  <div><button type="submit" class="primary">Save name</button></div>
</form>
</section>
<section>
<h2>Password</h2>
<form method="post" action="/account/password">
  ${csrfField(csrf)}
  <label for="currentPassword">Current password</label>
  <input id="currentPassword" name="currentPassword" type="password" autocomplete="current-password" required${current.attributes}>
  ${current.line}
  <label for="newPassword">New password</label>
  <input id="newPassword" name="newPassword" type="password" autocomplete="new-password" required minlength="${passwordMinLength}"${next.attributes}>
  ${next.line}
  <div><button type="submit" class="primary">Change password</button></div>
</form>
</section>
<section>
<h2>Workspaces</h2>
${
  workspaces.length === 0
    ? html`<p>You do not belong to any workspace yet.</p>`
    : html`<table class="stack"><thead><tr><th>Workspace</th><th>Your role</th><th><span class="sr-only">Administration</span></th></tr></thead><tbody>
${workspaces.map(
  (w) =>
    html`<tr><td data-label="Workspace">${w.name}</td><td data-label="Your role">${w.role}</td><td>${canAdminister(w.role) ? html`<a href="/admin/workspaces/${w.id}">Manage ${w.name}</a>` : ''}</td></tr>`,
)}
</tbody></table>`
}
</section>`,
    );
  };

  app.get<NoticeQuery>('/account/profile', { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    return sendHtml(reply, await profilePage(request, user, notices[request.query.notice ?? '']));
  });

  app.post('/account/profile', { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    try {
      await updateName(ctx.db, ctx.clock, user.id, formOf(request.body).name);
    } catch (error) {
      const e = correctable(error);
      return sendHtml(reply, await profilePage(request, user, undefined, e), e.status);
    }
    return reply.redirect('/account/profile?notice=profile', 303);
  });

  app.post(
    '/account/password',
    { config: { page: true, rateLimit: { max: 10, timeWindow: '1 minute' } } },
    async (request, reply) => {
      const user = requireUser(request, reply);
      if (user === undefined) return reply;
      const form = formOf(request.body);
      try {
        await changePassword(ctx.db, ctx.clock, user.id, {
          current: form.currentPassword,
          next: form.newPassword,
          keepSessionHash: tokenHash(request.visitor.sessionToken!),
        });
      } catch (error) {
        const e = correctable(error);
        return sendHtml(reply, await profilePage(request, user, undefined, e), e.status);
      }
      return reply.redirect('/account/profile?notice=password', 303);
    },
  );
}
