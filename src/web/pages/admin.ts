/**
 * Workspace administration pages. Authorisation lives in the services (people/workspaces, auth):
 * a member gets 403, a non-member 404 — the pages only render and route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { blockClient, forgetGrantsOf } from '../../auth/grants.ts';
import type { Authorization } from '../../auth/setup.ts';
import {
  type RegisteredClient,
  registerWorkspaceClient,
  type WorkspaceClientView,
  workspaceClients,
} from '../../auth/workspaceClients.ts';
import type { AppContext } from '../../context.ts';
import { detailLevels } from '../../domain/detailLevels.ts';
import { invalidField } from '../../errors.ts';
import {
  addMember,
  changeRole,
  removeMember,
  updatePolicy,
  type WorkspaceOverview,
  workspaceOverview,
} from '../../people/workspaces.ts';
import { canAdminister, roles } from '../../policy/roles.ts';
import { scopes } from '../../policy/workspacePolicy.ts';
import { type GrantMetadata, liveGrantMetadataOfWorkspace } from '../../store/accessGrants.ts';
import type { User } from '../../store/users.ts';
import { workspacesOf } from '../../store/workspaces.ts';
import { correctable, type Form, formOf, sendHtml } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { requireUser } from '../visitor.ts';
import { detailWords, scopeWords } from '../words.ts';
import { utcTime, workspaceAppsSection } from './connectedApps.ts';

const notices: Record<string, string> = {
  added: 'The member was added.',
  role: 'The role was changed.',
  removed: 'The member was removed.',
  policy: 'The policy was saved.',
};

/** Blocking says how many grants it ended; the count travels in the redirect. */
function noticeOf(query: { notice?: string; ended?: string }): string | undefined {
  if (query.notice !== 'blocked') return notices[query.notice ?? ''];
  const ended = Number.parseInt(query.ended ?? '', 10);
  const grants = ended === 1 ? '1 grant' : `${Number.isSafeInteger(ended) ? ended : 0} grants`;
  return `The app was blocked in this workspace; ${grants} to it ended.`;
}

type WorkspaceParams = { Params: { workspaceId: string }; Querystring: { notice?: string; ended?: string } };
type MemberParams = { Params: { workspaceId: string; userId: string } };

interface Messages {
  notice?: string | undefined;
  error?: string;
  invitationLink?: string;
  /** Just registered: the only time its secret is shown. */
  registered?: RegisteredClient;
  /** The register form as submitted, shown again with the error. */
  draft?: Form;
}

interface Apps {
  grants: GrantMetadata[];
  clients: WorkspaceClientView[];
}

function roleSelect(id: string, selected: string, actorRole: string): Html {
  const options = roles.filter((r) => r !== 'owner' || actorRole === 'owner');
  return html`<select id="${id}" name="role">${options.map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${r}</option>`)}</select>`;
}

const draftText = (draft: Form | undefined, name: string): string =>
  typeof draft?.[name] === 'string' ? draft[name] : '';

function registeredNotice(client: RegisteredClient): Html {
  return html`<div class="notice" role="status"><p>The app <strong>${client.name}</strong> was registered. Client ID: <code id="new-client-id">${client.clientId}</code></p>
${client.clientSecret === undefined ? '' : html`<p>Client secret, shown only this once — copy it into the app now: <code id="new-client-secret">${client.clientSecret}</code></p>`}</div>`;
}

/** The workspace's own apps and the form to register one. */
function registeredAppsSection(
  clients: WorkspaceClientView[],
  base: string,
  csrf: string,
  draft: Form | undefined,
): Html {
  const type = draftText(draft, 'type') === 'confidential' ? 'confidential' : 'public';
  return html`<section>
<h2>Apps registered for this workspace</h2>
${
  clients.length === 0
    ? html`<p>No app registered here yet.</p>`
    : html`<table><thead><tr><th>App</th><th>Type</th><th>Redirect URIs</th><th>Registered (UTC)</th></tr></thead><tbody>
${clients.map(
  (c) => html`<tr><td>${c.name}<br><code>${c.clientId}</code></td><td>${c.kind ?? 'removed'}</td>
<td><ul>${c.redirectUris.map((uri) => html`<li><code>${uri}</code></li>`)}</ul></td>
<td>${utcTime(c.createdAt)}${c.createdByEmail ? html`<br><span class="muted">by ${c.createdByEmail}</span>` : ''}</td></tr>`,
)}
</tbody></table>`
}
<h3>Register an app</h3>
<form method="post" action="${base}/clients">
  ${csrfField(csrf)}
  <label for="client-name">Name</label>
  <input id="client-name" name="name" type="text" required value="${draftText(draft, 'name')}">
  <label for="client-redirect-uris">Redirect URIs (one per line)</label>
  <textarea id="client-redirect-uris" name="redirectUris" rows="3" required>${draftText(draft, 'redirectUris')}</textarea>
  <fieldset><legend>Type</legend>
  <div><input type="radio" id="client-type-public" name="type" value="public"${type === 'public' ? html` checked` : ''}>
  <label class="inline" for="client-type-public">Public: runs on people's devices or in the browser, keeps no secret</label></div>
  <div><input type="radio" id="client-type-confidential" name="type" value="confidential"${type === 'confidential' ? html` checked` : ''}>
  <label class="inline" for="client-type-confidential">Confidential: runs on a server that keeps a client secret</label></div>
  </fieldset>
  <div><button type="submit">Register app</button></div>
</form>
</section>`;
}

function workspaceBody(view: WorkspaceOverview, apps: Apps, csrf: string, messages: Messages): Html {
  const base = `/admin/workspaces/${view.workspace.id}`;
  const { policy } = view;
  return html`
${messages.invitationLink ? html`<p class="notice" role="status">No account uses that address yet, so an invitation was created. Send this single-use link (valid 7 days) to the person: <code>${messages.invitationLink}</code></p>` : ''}
${messages.registered ? registeredNotice(messages.registered) : ''}
<section>
<h2>Members</h2>
<table><thead><tr><th>Member</th><th>Role</th><th></th></tr></thead><tbody>
${view.members.map(
  (m) => html`<tr><td>${m.name}<br><span class="muted">${m.email}</span></td>
<td><form class="inline" method="post" action="${base}/members/${m.userId}/role">${csrfField(csrf)}
<label for="role-${m.userId}">Role of ${m.email}</label>${roleSelect(`role-${m.userId}`, m.role, view.role)}
<button type="submit">Change role</button></form></td>
<td><form class="inline" method="post" action="${base}/members/${m.userId}/remove">${csrfField(csrf)}
<button type="submit" aria-label="Remove ${m.email}">Remove</button></form></td></tr>`,
)}
</tbody></table>
<h3>Add a member</h3>
<form method="post" action="${base}/members">
  ${csrfField(csrf)}
  <label for="member-email">Email</label>
  <input id="member-email" name="email" type="email" required>
  <label for="member-role">Role</label>
  ${roleSelect('member-role', 'member', view.role)}
  <div><button type="submit">Add member</button></div>
</form>
</section>
<section>
<h2>Policy</h2>
<p class="muted" id="policy-effect">A narrower policy applies at once to every app already allowed. A wider one widens no one's grant by itself: an app that asks for the new access asks its person again, the next time it signs in.</p>
<form method="post" action="${base}/policy">
  ${csrfField(csrf)}
  <fieldset><legend>Scopes apps may be granted</legend>
  ${scopes.map(
    (
      s,
    ) => html`<div><input type="checkbox" id="scope-${s}" name="allowedScopes" value="${s}"${policy.allowedScopes.includes(s) ? html` checked` : ''}>
    <label class="inline" for="scope-${s}">${scopeWords[s]} (<code>${s}</code>)</label></div>`,
  )}
  </fieldset>
  <label for="maxDetailLevel">Maximum detail level</label>
  <select id="maxDetailLevel" name="maxDetailLevel">${detailLevels.map((d) => html`<option value="${d}"${d === policy.maxDetailLevel ? html` selected` : ''}>${detailWords[d]}</option>`)}</select>
  <div><input type="checkbox" id="privateDetailsAllowed" name="privateDetailsAllowed"${policy.privateDetailsAllowed ? html` checked` : ''}>
  <label class="inline" for="privateDetailsAllowed">Members may share details of private events</label></div>
  <label for="allowedClients">Allowed clients (one client ID per line; empty allows any client)</label>
  <textarea id="allowedClients" name="allowedClients" rows="3">${(policy.allowedClients ?? []).join('\n')}</textarea>
  <label for="blockedClients">Blocked clients (one client ID per line; their grants in this workspace end)</label>
  <textarea id="blockedClients" name="blockedClients" rows="3">${policy.blockedClients.join('\n')}</textarea>
  <div><button type="submit">Save policy</button></div>
</form>
</section>
${workspaceAppsSection(apps.grants, base, csrf)}
${registeredAppsSection(apps.clients, base, csrf, messages.draft)}
<section>
<h2>Audit log</h2>
${
  view.audit.length === 0
    ? html`<p>Nothing recorded yet.</p>`
    : html`<table><thead><tr><th>When (UTC)</th><th>Who</th><th>What</th><th>Member</th></tr></thead><tbody>
${view.audit.map((a) => html`<tr><td>${utcTime(a.at)}</td><td>${a.actorEmail ?? 'operator'}</td><td>${a.action}</td><td>${a.targetEmail ?? (typeof a.detail.email === 'string' ? a.detail.email : '')}</td></tr>`)}
</tbody></table>`
}
</section>`;
}

export function registerAdminPages(app: FastifyInstance, ctx: AppContext, auth: Authorization): void {
  const render = async (request: FastifyRequest, user: User, workspaceId: string, messages: Messages) => {
    // The overview authorises; only then are the workspace's grants and apps read.
    const view = await workspaceOverview(ctx.db, workspaceId, { userId: user.id });
    const apps = {
      grants: await liveGrantMetadataOfWorkspace(ctx.db, workspaceId),
      clients: await workspaceClients(auth.grants, workspaceId),
    };
    const csrf = request.visitor.csrfToken;
    return page(
      { title: view.workspace.name, user, csrfToken: csrf, notice: messages.notice, error: messages.error },
      workspaceBody(view, apps, csrf, messages),
    );
  };

  app.get('/admin', { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    const administered = (await workspacesOf(ctx.db, user.id)).filter((w) => canAdminister(w.role));
    const body =
      administered.length === 0
        ? html`<p>You do not administer any workspace.</p>`
        : html`<ul>${administered.map((w) => html`<li><a href="/admin/workspaces/${w.id}">${w.name}</a> (${w.role})</li>`)}</ul>`;
    return sendHtml(
      reply,
      page({ title: 'Administration', user, csrfToken: request.visitor.csrfToken }, body),
    );
  });

  app.get<WorkspaceParams>(
    '/admin/workspaces/:workspaceId',
    { config: { page: true } },
    async (request, reply) => {
      const user = requireUser(request, reply);
      if (user === undefined) return reply;
      const notice = noticeOf(request.query);
      return sendHtml(reply, await render(request, user, request.params.workspaceId, { notice }));
    },
  );

  /** Runs an admin action; correctable errors re-render the workspace page with the message. */
  const action = async (
    request: FastifyRequest,
    reply: FastifyReply,
    workspaceId: string,
    run: (user: User) => Promise<string | Messages | { location: string }>,
    draft?: Form,
  ) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    try {
      const outcome = await run(user);
      if (typeof outcome !== 'string' && 'location' in outcome) return reply.redirect(outcome.location, 303);
      if (typeof outcome !== 'string')
        return sendHtml(reply, await render(request, user, workspaceId, outcome));
      return reply.redirect(`/admin/workspaces/${workspaceId}?notice=${outcome}`, 303);
    } catch (error) {
      const e = correctable(error);
      return sendHtml(reply, await render(request, user, workspaceId, { error: e.message, draft }), e.status);
    }
  };

  app.post<WorkspaceParams>(
    '/admin/workspaces/:workspaceId/members',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        const form = formOf(request.body);
        const result = await addMember(
          ctx.db,
          ctx.clock,
          request.params.workspaceId,
          { email: form.email, role: form.role },
          { userId: user.id },
        );
        if (result.kind === 'added') return 'added';
        return { invitationLink: `${ctx.config.baseUrl}/invitation?token=${result.invitationToken}` };
      }),
  );

  app.post<MemberParams>(
    '/admin/workspaces/:workspaceId/members/:userId/role',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        const { workspaceId, userId } = request.params;
        await changeRole(ctx.db, ctx.clock, workspaceId, userId, formOf(request.body).role, {
          userId: user.id,
        });
        return 'role';
      }),
  );

  app.post<MemberParams>(
    '/admin/workspaces/:workspaceId/members/:userId/remove',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        const { workspaceId, userId } = request.params;
        await removeMember(ctx.db, ctx.clock, workspaceId, userId, { userId: user.id });
        await forgetGrantsOf(auth.grants, { userId, workspaceId });
        // Having left the workspace, the admin can no longer see its page.
        return userId === user.id ? { location: '/account' } : 'removed';
      }),
  );

  app.post<WorkspaceParams>(
    '/admin/workspaces/:workspaceId/policy',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        const form = formOf(request.body);
        await updatePolicy(
          ctx.db,
          ctx.clock,
          request.params.workspaceId,
          {
            allowedScopes: form.allowedScopes,
            maxDetailLevel: form.maxDetailLevel,
            privateDetailsAllowed: form.privateDetailsAllowed,
            allowedClients: form.allowedClients,
            blockedClients: form.blockedClients,
          },
          { userId: user.id },
        );
        // Scopes, levels and blocked clients apply to the grants already given, at once.
        await forgetGrantsOf(auth.grants, { workspaceId: request.params.workspaceId });
        return 'policy';
      }),
  );

  app.post<WorkspaceParams>(
    '/admin/workspaces/:workspaceId/clients/block',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        const { workspaceId } = request.params;
        const clientId = formOf(request.body).clientId;
        if (typeof clientId !== 'string' || clientId.trim() === '')
          throw invalidField('clientId', 'Choose the app to block.');
        const ended = await blockClient(auth.grants, user.id, workspaceId, clientId.trim());
        return { location: `/admin/workspaces/${workspaceId}?notice=blocked&ended=${ended}` };
      }),
  );

  app.post<WorkspaceParams>(
    '/admin/workspaces/:workspaceId/clients',
    { config: { page: true } },
    (request, reply) => {
      const form = formOf(request.body);
      return action(
        request,
        reply,
        request.params.workspaceId,
        async (user) => {
          const registration = { name: form.name, redirectUris: form.redirectUris, kind: form.type };
          const actor = { userId: user.id };
          return {
            registered: await registerWorkspaceClient(
              auth.grants,
              request.params.workspaceId,
              registration,
              actor,
            ),
          };
        },
        form,
      );
    },
  );
}
