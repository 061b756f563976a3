/**
 * The apps a person allowed (their OAuth grants) with calendars and levels, a page to change
 * which calendars each sees and a way to end each (the account page's "Your assistants"), and a
 * workspace's grants as its admins see them — metadata and counts only, since admins must not
 * learn about people's calendars.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { changeGrant, grantChoices, revokeGrant } from '../../auth/grants.ts';
import type { Authorization } from '../../auth/setup.ts';
import type { AppContext } from '../../context.ts';
import type { AppError } from '../../errors.ts';
import type { GrantListing, GrantMetadata } from '../../store/accessGrants.ts';
import type { User } from '../../store/users.ts';
import { findWorkspace } from '../../store/workspaces.ts';
import { correctable, formOf, sendHtml } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { requireUser } from '../visitor.ts';
import { type ReaderTime, timeTag } from '../when.ts';
import { detailWords, scopeWords } from '../words.ts';
import { calendarChoiceFields, choiceOf, errorAbove } from './calendarChoice.ts';

export const connectedAppNotices: Record<string, string> = {
  'app-revoked': 'The app’s access was revoked. It can no longer use your calendars.',
  'app-changed': 'The app now sees the calendars you chose, from its next request.',
};

/** The person's live grants, one card each: what it may do, its calendars, Change and Revoke. */
export async function assistantsSection(
  ctx: AppContext,
  grants: readonly GrantListing[],
  csrf: string,
  time: ReaderTime,
): Promise<Html> {
  if (grants.length === 0)
    return html`<p>No assistant has access to your calendars yet: the steps below show how to add one.</p>`;
  const names = new Map<string, string>();
  for (const id of new Set(grants.map((g) => g.workspaceId))) {
    names.set(id, (await findWorkspace(ctx.db, id))?.name ?? id);
  }
  return html`<div class="cards">${grants.map((g) => {
    const workspace = names.get(g.workspaceId)!;
    return html`<article class="card" aria-labelledby="app-${g.id}">
<h3 id="app-${g.id}">${g.clientName}</h3>
<p class="muted">In ${workspace} · last used ${g.lastUsedAt === null ? 'never' : timeTag(g.lastUsedAt, time)} · allowed ${timeTag(g.createdAt, time)}</p>
<dl class="facts"><dt>May</dt><dd>${g.scopes.map((s) => scopeWords[s]).join('; ')}${g.privateDetails ? '; details of private events' : ''}</dd>
<dt>Calendars</dt><dd>${g.calendars.length === 0 ? html`<span class="muted">None</span>` : html`<ul class="plain">${g.calendars.map((c, i) => html`<li>${g.calendarNames[i]}: <strong>${detailWords[c.detailLevel]}</strong></li>`)}</ul>`}</dd></dl>
<div class="actions"><a class="button secondary" href="/account/apps/${g.id}" aria-label="Change what ${g.clientName} sees in ${workspace}">Change</a>
<form method="post" action="/account/apps/${g.id}/revoke">${csrfField(csrf)}<button type="submit" class="danger" aria-label="Revoke ${g.clientName} in ${workspace}">Revoke</button></form></div>
</article>`;
  })}</div>`;
}

type GrantParams = { Params: { grantId: string } };

export function registerConnectedAppRoutes(app: FastifyInstance, auth: Authorization): void {
  /** The Change page of one app: its calendars and levels, as at consent, the current ones chosen. */
  const changePage = async (request: FastifyRequest<GrantParams>, user: User, error?: AppError) => {
    const csrf = request.visitor.csrfToken;
    const { grant, offer } = await grantChoices(auth.grants.db, user.id, request.params.grantId);
    return page(
      {
        title: `Change what ${grant.clientName} sees`,
        user,
        csrfToken: csrf,
        error: errorAbove(offer, error),
      },
      html`<p><strong>${grant.clientName}</strong> (<code>${grant.clientId}</code>) in the workspace <strong>${offer.workspace.name}</strong>. The change applies to the access it has now, from its next request.</p>
<form method="post" action="/account/apps/${grant.id}">
  ${csrfField(csrf)}
  ${calendarChoiceFields(offer, grant, error)}
  <button type="submit" class="primary">Save</button>
</form>
<p><a href="/account">Back to your account</a></p>`,
    );
  };

  app.get<GrantParams>('/account/apps/:grantId', { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    return sendHtml(reply, await changePage(request, user));
  });

  app.post<GrantParams>('/account/apps/:grantId', { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    try {
      await changeGrant(auth.grants, user.id, request.params.grantId, choiceOf(formOf(request.body)));
    } catch (error) {
      const e = correctable(error);
      return sendHtml(reply, await changePage(request, user, e), e.status);
    }
    return reply.redirect('/account?notice=app-changed', 303);
  });

  app.post<{ Params: { grantId: string } }>(
    '/account/apps/:grantId/revoke',
    { config: { page: true } },
    async (request, reply) => {
      const user = requireUser(request, reply);
      if (user === undefined) return reply;
      // Someone else's grant is not_found, like a missing one: the error page says so.
      await revokeGrant(auth.grants, user.id, request.params.grantId);
      return reply.redirect('/account?notice=app-revoked', 303);
    },
  );
}

/** The admin page's section: the workspace's live grants, and a Block button per app. */
export function workspaceAppsSection(
  grants: readonly GrantMetadata[],
  base: string,
  csrf: string,
  time: ReaderTime,
): Html {
  const clients = new Map<string, { name: string; count: number }>();
  for (const g of grants) {
    const seen = clients.get(g.clientId);
    clients.set(g.clientId, { name: seen?.name ?? g.clientName, count: (seen?.count ?? 0) + 1 });
  }
  return html`<section id="apps" class="panel wide">
<h2>Apps with access</h2>
${
  grants.length === 0
    ? html`<p>No app has access to calendars in this workspace.</p>`
    : html`<div class="scroll"><table class="stack"><thead><tr><th>Member</th><th>App</th><th>May</th><th>Calendars</th><th>When</th></tr></thead><tbody>
${grants.map(
  (
    g,
  ) => html`<tr><td data-label="Member">${g.userEmail}</td><td data-label="App">${g.clientName}<br><code>${g.clientId}</code></td>
<td data-label="May"><ul>${g.scopes.map((s) => html`<li>${scopeWords[s]}</li>`)}</ul></td>
<td data-label="Calendars">${g.calendarCount}</td>
<td data-label="When">Allowed ${timeTag(g.createdAt, time)}<br>Last used ${g.lastUsedAt === null ? 'never' : timeTag(g.lastUsedAt, time)}</td></tr>`,
)}
</tbody></table></div>
<h3>Block an app</h3>
<p>Blocking ends every grant to the app in this workspace and refuses new ones.</p>
<ul>${[...clients].map(
        ([
          clientId,
          c,
        ]) => html`<li>${c.name} <code>${clientId}</code> (${c.count === 1 ? '1 grant' : `${c.count} grants`})
<form class="inline" method="post" action="${base}/clients/block">${csrfField(csrf)}<input type="hidden" name="clientId" value="${clientId}">
<button type="submit" aria-label="Block this app in the workspace: ${c.name}">Block this app in the workspace</button></form></li>`,
      )}</ul>`
}
</section>`;
}
