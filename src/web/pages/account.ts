/** The account page: profile, password, the person's workspaces, calendars, connected apps and their changes. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authorization } from '../../auth/setup.ts';
import type { CalendarCopies } from '../../calendars/copies.ts';
import type { AppContext } from '../../context.ts';
import { tokenHash } from '../../lib/secrets.ts';
import { changePassword, updateName } from '../../people/accounts.ts';
import { passwordMinLength } from '../../people/passwords.ts';
import { canAdminister } from '../../policy/roles.ts';
import { liveGrantsOfUser } from '../../store/accessGrants.ts';
import { accountsOf } from '../../store/connectedAccounts.ts';
import type { User } from '../../store/users.ts';
import { workspacesOf } from '../../store/workspaces.ts';
import { correctable, formOf, sendHtml } from '../forms.ts';
import { html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { requireUser } from '../visitor.ts';
import { appWritesSection } from './appWrites.ts';
import { connectedAppNotices, connectedAppsSection, registerConnectedAppRoutes } from './connectedApps.ts';
import type { ConnectFormState } from './connectForms.ts';
import { connectionNotices, connectionsSection, registerConnectionRoutes } from './connections.ts';
import { gettingStartedSection } from './gettingStarted.ts';

const notices: Record<string, string> = {
  profile: 'Your name was saved.',
  password: 'Your password was changed. Other sessions were signed out.',
  ...connectionNotices,
  ...connectedAppNotices,
};

type NoticeQuery = { Querystring: { notice?: string } };

export function registerAccountPages(
  app: FastifyInstance,
  ctx: AppContext,
  auth: Authorization,
  copies: CalendarCopies | undefined,
): void {
  const accountPage = async (
    request: FastifyRequest,
    user: User,
    { connectForm, ...messages }: { notice?: string; error?: string; connectForm?: ConnectFormState },
  ) => {
    const csrf = request.visitor.csrfToken;
    const workspaces = await workspacesOf(ctx.db, user.id);
    const connections = await Promise.all(
      workspaces.map((w) => connectionsSection(ctx, user, w, csrf, connectForm)),
    );
    const apps = await connectedAppsSection(ctx, user, csrf);
    const writes = await appWritesSection(ctx, user);
    const start = gettingStartedSection({
      mcpUrl: `${ctx.config.baseUrl}/mcp`,
      calendarsConnected: (await accountsOf(ctx.db, user.id)).length > 0,
      appsAllowed: (await liveGrantsOfUser(ctx.db, user.id)).length > 0,
    });
    return page(
      { title: 'Your account', user, csrfToken: csrf, ...messages },
      html`${start}
<section>
<h2>Profile</h2>
<p>Signed in as <strong>${user.email}</strong>.</p>
<p><a href="/account/working-hours">Your working hours</a></p>
<form method="post" action="/account/profile">
  ${csrfField(csrf)}
  <label for="name">Name</label>
  <input id="name" name="name" type="text" autocomplete="name" required value="${user.name}">
  <div><button type="submit">Save name</button></div>
</form>
</section>
<section>
<h2>Password</h2>
<form method="post" action="/account/password">
  ${csrfField(csrf)}
  <label for="currentPassword">Current password</label>
  <input id="currentPassword" name="currentPassword" type="password" autocomplete="current-password" required>
  <label for="newPassword">New password</label>
  <input id="newPassword" name="newPassword" type="password" autocomplete="new-password" required minlength="${passwordMinLength}">
  <div><button type="submit">Change password</button></div>
</form>
</section>
<section>
<h2>Workspaces</h2>
${
  workspaces.length === 0
    ? html`<p>You do not belong to any workspace yet.</p>`
    : html`<table><thead><tr><th>Workspace</th><th>Your role</th><th></th></tr></thead><tbody>
${workspaces.map(
  (w) =>
    html`<tr><td>${w.name}</td><td>${w.role}</td><td>${canAdminister(w.role) ? html`<a href="/admin/workspaces/${w.id}">Manage</a>` : ''}</td></tr>`,
)}
</tbody></table>`
}
</section>
<section>
<h2>Connected calendars</h2>
${workspaces.length === 0 ? html`<p>Join a workspace to connect calendar accounts.</p>` : connections}
</section>
<section>
<h2>Connected apps</h2>
${apps}
</section>
<section>
<h2>Changes made by apps</h2>
${writes}
</section>`,
    );
  };

  registerConnectionRoutes(
    app,
    ctx,
    (request, user, messages) => accountPage(request, user, messages),
    copies,
    auth.grants,
  );
  registerConnectedAppRoutes(app, auth);

  app.get<NoticeQuery>('/account', { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    return sendHtml(reply, await accountPage(request, user, { notice: notices[request.query.notice ?? ''] }));
  });

  app.post('/account/profile', { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    try {
      await updateName(ctx.db, ctx.clock, user.id, formOf(request.body).name);
    } catch (error) {
      const e = correctable(error);
      return sendHtml(reply, await accountPage(request, user, { error: e.message }), e.status);
    }
    return reply.redirect('/account?notice=profile', 303);
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
        return sendHtml(reply, await accountPage(request, user, { error: e.message }), e.status);
      }
      return reply.redirect('/account?notice=password', 303);
    },
  );
}
