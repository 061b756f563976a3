/**
 * Workspace administration pages. Authorisation lives in the administration service (people/):
 * a member gets 403, a non-member 404 — the pages only render and route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { connectionRooms } from '../../calendars/connections/connectionRooms.ts';
import type { AppContext } from '../../context.ts';
import { detailLevels } from '../../domain/detailLevels.ts';
import { maxRoomCapacity } from '../../domain/rooms.ts';
import { invalidField } from '../../errors.ts';
import type { AdministrationDeps, RegisteredClient } from '../../people/administrationPorts.ts';
import { blockClient, updatePolicy } from '../../people/policyChanges.ts';
import { addRoom, importRooms, removeRoom } from '../../people/rooms.ts';
import { registerApp } from '../../people/workspaceApps.ts';
import {
  type WorkspaceClientView,
  type WorkspaceOverview,
  workspaceOverview,
} from '../../people/workspaceOverview.ts';
import { addMember, changeRole, removeMember, withdrawInvitation } from '../../people/workspaces.ts';
import { canAdminister, roles } from '../../policy/roles.ts';
import { scopes, type WorkspacePolicy } from '../../policy/workspacePolicy.ts';
import type { StoredRoom } from '../../store/rooms.ts';
import type { User } from '../../store/users.ts';
import { workspacesOf } from '../../store/workspaces.ts';
import { correctable, type Form, formOf, sendHtml } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { readerTime } from '../readerTime.ts';
import { requireUser } from '../visitor.ts';
import { type ReaderTime, timeTag } from '../when.ts';
import { detailWords, scopeWords } from '../words.ts';
import { auditLogSection } from './auditLog.ts';
import { workspaceAppsSection } from './connectedApps.ts';

const notices: Record<string, string> = {
  added: 'The member was added.',
  role: 'The role was changed.',
  removed: 'The member was removed.',
  withdrawn: 'The invitation was withdrawn: its link no longer works.',
  policy: 'The policy was saved.',
  room: 'The room was saved.',
  roomRemoved: 'The room was removed.',
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
  /** Just invited: whether it was e-mailed (undefined: no mail here) and, unless it was, the link. */
  invitation?: { email: string; link: string; mailed: boolean | undefined };
  /** Just registered: the only time its secret is shown. */
  registered?: RegisteredClient;
  /** The register form as submitted, shown again with the error. */
  draft?: Form;
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
  time: ReaderTime,
): Html {
  const type = draftText(draft, 'type') === 'confidential' ? 'confidential' : 'public';
  return html`<section id="registered" class="panel wide">
<h2>Apps registered for this workspace</h2>
${
  clients.length === 0
    ? html`<p>No app registered here yet.</p>`
    : html`<div class="scroll"><table class="stack"><thead><tr><th>App</th><th>Type</th><th>Redirect URIs</th><th>Registered</th></tr></thead><tbody>
${clients.map(
  (
    c,
  ) => html`<tr><td data-label="App">${c.name}<br><code>${c.clientId}</code></td><td data-label="Type">${c.kind ?? 'removed'}</td>
<td data-label="Redirect URIs"><ul>${c.redirectUris.map((uri) => html`<li><code>${uri}</code></li>`)}</ul></td>
<td data-label="Registered">${timeTag(c.createdAt, time)}${c.createdByEmail ? html`<br><span class="muted">by ${c.createdByEmail}</span>` : ''}</td></tr>`,
)}
</tbody></table></div>`
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
  <div><button type="submit" class="primary">Register app</button></div>
</form>
</section>`;
}

/**
 * An e-mailed link is not shown: it reached the address's owner alone. When it could not be sent,
 * or without mail, the admin passes it on.
 */
function invitationNotice(invitation: NonNullable<Messages['invitation']>): Html {
  if (invitation.mailed === true)
    return html`<p class="notice" role="status">No account uses that address yet, so an invitation was e-mailed to <strong>${invitation.email}</strong>. Its single-use link works for 7 days.</p>`;
  const why =
    invitation.mailed === false
      ? html`an invitation was created, but the e-mail to <strong>${invitation.email}</strong> could not be sent`
      : 'an invitation was created';
  return html`<p class="notice" role="status">No account uses that address yet, so ${why}. Send this single-use link (valid 7 days) to the person: <code>${invitation.link}</code></p>`;
}

/** The sections of a workspace's page, in the order of its in-page navigation. */
const sections = [
  ['members', 'Members'],
  ['policy', 'Policy'],
  ['rooms', 'Rooms'],
  ['apps', 'Apps with access'],
  ['registered', 'Registered apps'],
  ['audit', 'Audit log'],
] as const;

/** Invitations not yet accepted, each with Withdraw (the link then stops working). */
function pendingInvitationsPart(view: WorkspaceOverview, base: string, csrf: string, time: ReaderTime): Html {
  if (view.invitations.length === 0) return html``;
  return html`<h3 id="invitations">Pending invitations</h3>
<div class="scroll"><table class="stack"><thead><tr><th>Invited</th><th>Role</th><th>Link valid until</th><th><span class="sr-only">Withdraw</span></th></tr></thead><tbody>
${view.invitations.map(
  (
    i,
  ) => html`<tr><td data-label="Invited">${i.email}${i.invitedBy === null ? '' : html`<br><span class="muted">by ${i.invitedBy}</span>`}</td>
<td data-label="Role">${i.role}</td><td data-label="Link valid until">${timeTag(i.expiresAt, time)}</td>
<td><form class="inline" method="post" action="${base}/invitations/withdraw">${csrfField(csrf)}<input type="hidden" name="invitation" value="${i.tokenHash}">
<button type="submit" aria-label="Withdraw the invitation of ${i.email}">Withdraw</button></form></td></tr>`,
)}
</tbody></table></div>`;
}

function membersSection(view: WorkspaceOverview, base: string, csrf: string, time: ReaderTime): Html {
  return html`<section id="members" class="panel">
<h2>Members</h2>
<div class="scroll"><table class="stack"><thead><tr><th>Member</th><th>Role</th><th><span class="sr-only">Remove</span></th></tr></thead><tbody>
${view.members.map(
  (m) => html`<tr><td data-label="Member">${m.name}<br><span class="muted">${m.email}</span></td>
<td data-label="Role"><form class="inline" method="post" action="${base}/members/${m.userId}/role">${csrfField(csrf)}
<label class="sr-only" for="role-${m.userId}">Role of ${m.email}</label>${roleSelect(`role-${m.userId}`, m.role, view.role)}
<button type="submit">Change role</button></form></td>
<td><form class="inline" method="post" action="${base}/members/${m.userId}/remove">${csrfField(csrf)}
<button type="submit" aria-label="Remove ${m.email}">Remove</button></form></td></tr>`,
)}
</tbody></table></div>
${pendingInvitationsPart(view, base, csrf, time)}
<h3>Add a member</h3>
<p class="muted">Someone without an account here gets a single-use invitation link, valid 7 days: e-mailed to them where this service sends mail, else shown here for you to send.</p>
<form method="post" action="${base}/members">
  ${csrfField(csrf)}
  <label for="member-email">Email</label>
  <input id="member-email" name="email" type="email" required>
  <label for="member-role">Role</label>
  ${roleSelect('member-role', 'member', view.role)}
  <div><button type="submit" class="primary">Add member</button></div>
</form>
</section>`;
}

function policySection(policy: WorkspacePolicy, base: string, csrf: string): Html {
  return html`<section id="policy" class="panel">
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
  <label for="defaultDetailLevel">Detail level preselected at consent (at most the maximum)</label>
  <select id="defaultDetailLevel" name="defaultDetailLevel">${detailLevels.map((d) => html`<option value="${d}"${d === policy.defaultDetailLevel ? html` selected` : ''}>${detailWords[d]}</option>`)}</select>
  <div class="check"><input type="checkbox" id="privateDetailsAllowed" name="privateDetailsAllowed"${policy.privateDetailsAllowed ? html` checked` : ''}>
  <label class="inline" for="privateDetailsAllowed">Members may share details of private events</label></div>
  <div class="check"><input type="checkbox" id="colleagueAvailability" name="colleagueAvailability"${policy.colleagueAvailability ? html` checked` : ''}>
  <label class="inline" for="colleagueAvailability">Members see each other's free/busy (times only)</label></div>
  <label for="allowedClients">Allowed clients (one client ID per line; empty allows any client)</label>
  <textarea id="allowedClients" name="allowedClients" rows="3">${(policy.allowedClients ?? []).join('\n')}</textarea>
  <label for="blockedClients">Blocked clients (one client ID per line; their grants in this workspace end)</label>
  <textarea id="blockedClients" name="blockedClients" rows="3">${policy.blockedClients.join('\n')}</textarea>
  <div><button type="submit" class="primary">Save policy</button></div>
</form>
</section>`;
}

/** The room list: each room with Remove, the form to add one, and filling it from the providers. */
function roomsSection(rooms: readonly StoredRoom[], base: string, csrf: string): Html {
  return html`<section id="rooms" class="panel">
<h2>Rooms</h2>
${
  rooms.length === 0
    ? html`<p>No room listed yet.</p>`
    : html`<div class="scroll"><table class="stack"><thead><tr><th>Room</th><th>Seats</th><th>Features</th><th></th></tr></thead><tbody>
${rooms.map(
  (
    r,
  ) => html`<tr><td data-label="Room">${r.name}<br><span class="muted">${r.email}</span></td><td data-label="Seats">${r.capacity ?? '–'}</td><td data-label="Features">${r.features.join(', ')}</td>
<td><form class="inline" method="post" action="${base}/rooms/remove">${csrfField(csrf)}<input type="hidden" name="email" value="${r.email}">
<button type="submit" aria-label="Remove the room ${r.email}">Remove</button></form></td></tr>`,
)}
</tbody></table></div>`
}
<h3>Add a room</h3>
<form method="post" action="${base}/rooms">
  ${csrfField(csrf)}
  <label for="room-name">Room name</label>
  <input id="room-name" name="name" type="text" required>
  <label for="room-email">Its calendar's e-mail address</label>
  <input id="room-email" name="email" type="email" required>
  <label for="room-capacity">Seats (optional)</label>
  <input id="room-capacity" name="capacity" type="number" min="1" max="${maxRoomCapacity}">
  <label for="room-features">Features (comma-separated, e.g. video, whiteboard)</label>
  <input id="room-features" name="features" type="text">
  <div><button type="submit">Add room</button></div>
</form>
<h3>From your calendar accounts</h3>
<p class="muted">Adds the rooms your calendar accounts list (Microsoft 365 places, Google resource calendars, CalDAV room principals); rooms added by hand stay as they are.</p>
<form method="post" action="${base}/rooms/import">${csrfField(csrf)}<div><button type="submit">Fill from providers</button></div></form>
</section>`;
}

function workspaceBody(view: WorkspaceOverview, csrf: string, messages: Messages, time: ReaderTime): Html {
  const base = `/admin/workspaces/${view.workspace.id}`;
  return html`
${messages.invitation ? invitationNotice(messages.invitation) : ''}
${messages.registered ? registeredNotice(messages.registered) : ''}
<nav class="toc" aria-label="Sections of this page"><ul>${sections.map(([id, title]) => html`<li><a href="#${id}">${title}</a></li>`)}</ul></nav>
<div class="panels">
${membersSection(view, base, csrf, time)}
${policySection(view.policy, base, csrf)}
${roomsSection(view.rooms, base, csrf)}
${workspaceAppsSection(view.grants, base, csrf, time)}
${registeredAppsSection(view.clients, base, csrf, messages.draft, time)}
${auditLogSection(view.audit)}
</div>`;
}

export function registerAdminPages(app: FastifyInstance, ctx: AppContext, admin: AdministrationDeps): void {
  const render = async (request: FastifyRequest, user: User, workspaceId: string, messages: Messages) => {
    const view = await workspaceOverview(admin, workspaceId, { userId: user.id });
    const csrf = request.visitor.csrfToken;
    const time = await readerTime(ctx, user.id);
    return page(
      {
        title: view.workspace.name,
        user,
        csrfToken: csrf,
        notice: messages.notice,
        error: messages.error,
        wide: true,
      },
      workspaceBody(view, csrf, messages, time),
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
          admin,
          request.params.workspaceId,
          { email: form.email, role: form.role },
          { userId: user.id },
        );
        if (result.kind === 'added') return 'added';
        return { invitation: result };
      }),
  );

  app.post<MemberParams>(
    '/admin/workspaces/:workspaceId/members/:userId/role',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        const { workspaceId, userId } = request.params;
        await changeRole(admin, workspaceId, userId, formOf(request.body).role, { userId: user.id });
        return 'role';
      }),
  );

  app.post<MemberParams>(
    '/admin/workspaces/:workspaceId/members/:userId/remove',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        const { workspaceId, userId } = request.params;
        await removeMember(admin, workspaceId, userId, { userId: user.id });
        // Having left the workspace, the admin can no longer see its page.
        return userId === user.id ? { location: '/account' } : 'removed';
      }),
  );

  app.post<WorkspaceParams>(
    '/admin/workspaces/:workspaceId/invitations/withdraw',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        const { workspaceId } = request.params;
        await withdrawInvitation(admin, workspaceId, formOf(request.body).invitation, { userId: user.id });
        return 'withdrawn';
      }),
  );

  app.post<WorkspaceParams>(
    '/admin/workspaces/:workspaceId/policy',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        const form = formOf(request.body);
        await updatePolicy(
          admin,
          request.params.workspaceId,
          {
            allowedScopes: form.allowedScopes,
            maxDetailLevel: form.maxDetailLevel,
            defaultDetailLevel: form.defaultDetailLevel,
            privateDetailsAllowed: form.privateDetailsAllowed,
            // A checkbox left unticked is not sent: here that says off.
            colleagueAvailability: form.colleagueAvailability ?? 'off',
            allowedClients: form.allowedClients,
            blockedClients: form.blockedClients,
          },
          { userId: user.id },
        );
        return 'policy';
      }),
  );

  app.post<WorkspaceParams>(
    '/admin/workspaces/:workspaceId/rooms',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        const { email, name, capacity, features } = formOf(request.body);
        await addRoom(
          admin,
          request.params.workspaceId,
          { email, name, capacity, features },
          {
            userId: user.id,
          },
        );
        return 'room';
      }),
  );

  app.post<WorkspaceParams>(
    '/admin/workspaces/:workspaceId/rooms/remove',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        await removeRoom(admin, request.params.workspaceId, formOf(request.body).email, {
          userId: user.id,
        });
        return 'roomRemoved';
      }),
  );

  app.post<WorkspaceParams>(
    '/admin/workspaces/:workspaceId/rooms/import',
    { config: { page: true } },
    (request, reply) =>
      action(request, reply, request.params.workspaceId, async (user) => {
        const owner = { userId: user.id, workspaceId: request.params.workspaceId };
        const { listed, failed } = await importRooms(admin, owner.workspaceId, owner, () =>
          connectionRooms(ctx, owner),
        );
        const rooms = listed === 1 ? '1 room' : `${listed} rooms`;
        const unanswered =
          failed === 0 ? '' : ` ${failed === 1 ? 'One account' : `${failed} accounts`} could not list rooms.`;
        return { notice: `Your calendar accounts listed ${rooms}.${unanswered}` };
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
        const ended = await blockClient(admin, workspaceId, clientId.trim(), { userId: user.id });
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
          return {
            registered: await registerApp(admin, request.params.workspaceId, registration, {
              userId: user.id,
            }),
          };
        },
        form,
      );
    },
  );
}
