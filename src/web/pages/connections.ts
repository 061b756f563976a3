/**
 * Connected calendar accounts, a section of the account page: connect (CalDAV form, ICS feed,
 * and Google / Microsoft when configured), reconnect, remove — per workspace; each calendar with
 * the state of its synced copy and "Sync now".
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GrantsDeps } from '../../auth/grants.ts';
import {
  type FlowDeps,
  finishConnectFlow,
  startConnectFlow,
} from '../../calendars/connections/connectFlow.ts';
import {
  addConnection,
  calendarAddressOf,
  chooseCountingCalendars,
  missesSharedCalendars,
  ownConnection,
  reconnectWithPassword,
  removeConnection,
} from '../../calendars/connections/connections.ts';
import {
  caldavCredentials,
  connectionLabel,
  icsCredentials,
  providerNames,
} from '../../calendars/connections/credentialsInput.ts';
import type { CalendarCopies, SyncOutcome } from '../../calendars/copies.ts';
import type { AppContext } from '../../context.ts';
import { AppError, invalidField } from '../../errors.ts';
import { waitAtMost } from '../../lib/waitAtMost.ts';
import type { OAuthProviderKind } from '../../providers/connectors.ts';
import type { CalendarAddress } from '../../providers/port.ts';
import { copiesOf } from '../../store/calendarCopies.ts';
import {
  accountsOf,
  type CalendarRecord,
  calendarsOfAccount,
  countingCalendars,
  findCalendars,
} from '../../store/connectedAccounts.ts';
import type { User } from '../../store/users.ts';
import type { Workspace } from '../../store/workspaces.ts';
import { correctable, formOf, sendHtml } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { requireUser } from '../visitor.ts';
import type { ReaderTime } from '../when.ts';
import { type ConnectFormState, connectForm, connectFormState, typedKinds } from './connectForms.ts';
import { copyStateWords } from './copyState.ts';

export const connectionNotices: Record<string, string> = {
  connected: 'The account was connected.',
  reconnected: 'The account was reconnected.',
  removed: 'The account was removed, with its stored credentials and calendars.',
  cancelled: 'Connecting the account was cancelled.',
  synced: 'The calendar was synced.',
  syncFailed: 'The calendar could not be synced; its line below says why.',
  syncBusy: 'The calendar is being synced already; refresh in a moment.',
  syncStarted: 'Sync started; refresh in a moment.',
  notCopied: 'This calendar is not copied: no app has access to it.',
  availability: 'Your choice of calendars for free/busy was saved.',
};

const syncNotices: Record<SyncOutcome, string> = {
  synced: 'synced',
  failed: 'syncFailed',
  busy: 'syncBusy',
  gone: 'notCopied',
};

/** Which of an account's calendars count toward the person's free/busy for colleagues: one form, one save. */
async function availabilityForm(ctx: AppContext, calendars: CalendarRecord[], action: string, csrf: string) {
  const counting = await countingCalendars(
    ctx.db,
    calendars.map((c) => c.id),
  );
  return html`<details><summary>Free/busy for colleagues</summary><form method="post" action="${action}/availability">${csrfField(csrf)}
${calendars.map((c) => html`<div class="check"><input type="checkbox" id="counts-${c.id}" name="counting" value="${c.id}"${counting.has(c.id) ? html` checked` : ''}><label class="inline" for="counts-${c.id}">${c.name} counts toward my free/busy</label></div>`)}
<button type="submit">Save free/busy choice</button></form></details>`;
}

/** The calendars of one account, each with its copy's state and, when it has a copy, "Sync now". */
async function calendarList(
  ctx: AppContext,
  calendars: CalendarRecord[],
  action: string,
  csrf: string,
  time: ReaderTime,
) {
  if (calendars.length === 0) return html`<span class="muted">No calendars</span>`;
  const copies = await copiesOf(
    ctx.db,
    calendars.map((c) => c.id),
  );
  const maxAgeMs = ctx.config.sync.maxAgeSeconds * 1000;
  return html`<ul class="plain calendars">${calendars.map((c) => {
    const copy = copies.get(c.id);
    const state = copyStateWords(copy, { time, maxAgeMs });
    return html`<li>${c.name}${c.access === 'reader' || c.access === 'freeBusy' ? html` <span class="muted">(read-only)</span>` : ''}
<div class="copy-state">${state}</div>${copy === undefined ? '' : html`<form class="inline" method="post" action="${action}/${c.id}/sync">${csrfField(csrf)}<button type="submit" class="small" aria-label="Sync now: ${c.name}">Sync now</button></form>`}</li>`;
  })}</ul>${await availabilityForm(ctx, calendars, action, csrf)}`;
}

const addressSources: Record<CalendarAddress['from'], string> = {
  server: "the server's address for you",
  form: 'as given when connecting',
  login: 'the user name',
  signIn: 'your sign-in address',
};

/** Which address a CalDAV account invites guests from and answers invitations as, and why. */
const addressLine = (address: CalendarAddress | undefined): Html =>
  address === undefined
    ? html`<br><span class="muted">No address in calendars known: guests and answers are off until the account is reconnected.</span>`
    : html`<br><span class="muted">Invites and answers as ${address.email} (${addressSources[address.from]})</span>`;

/** A Microsoft account connected before shared calendars: what a reconnect adds. */
const sharedLine = (label: string): Html =>
  html`<br><span class="muted">Calendars others share with ${label} are not listed: reconnect the account to add them.</span>`;

export const accountDeps = (ctx: AppContext): FlowDeps => ({
  db: ctx.db,
  clock: ctx.clock,
  box: ctx.box,
  providers: ctx.providers,
  connectors: ctx.connectors,
});

/** The section for one workspace: its accounts with calendars, and the ways to connect one. */
export async function connectionsSection(
  ctx: AppContext,
  user: User,
  workspace: Workspace,
  csrf: string,
  time: ReaderTime,
  form?: ConnectFormState,
): Promise<Html> {
  const deps = accountDeps(ctx);
  const accounts = await accountsOf(ctx.db, user.id, workspace.id);
  const base = `/account/workspaces/${workspace.id}/connections`;
  const rows = await Promise.all(
    accounts.map(async (a) => {
      const calendars = await calendarsOfAccount(ctx.db, a.id);
      const address = a.provider === 'caldav' ? addressLine(await calendarAddressOf(deps, a)) : '';
      const shared = (await missesSharedCalendars(deps, a)) ? sharedLine(a.label) : '';
      return html`<tr><td data-label="Account">${a.label}<br><span class="muted">${providerNames[a.provider]}</span>${address}${shared}</td>
<td data-label="Status">${a.status === 'active' ? 'Connected' : html`<strong>Needs reconnecting</strong>`}</td>
<td data-label="Calendars">${await calendarList(ctx, calendars, `${base}/${a.id}/calendars`, csrf, time)}</td>
<td data-label="Account actions">${a.provider === 'caldav' ? html`<details><summary>New app password</summary><form method="post" action="${base}/${a.id}/reconnect">${csrfField(csrf)}<label for="pw-${a.id}">New app password for ${a.label}</label><input id="pw-${a.id}" name="password" type="password" required><button type="submit">Reconnect</button></form></details>` : ''}
${a.provider === 'google' || a.provider === 'microsoft' ? html`<form class="inline" method="post" action="${base}/${a.id}/reconnect">${csrfField(csrf)}<button type="submit" aria-label="Reconnect ${a.label}">Reconnect</button></form>` : ''}
<form class="inline" method="post" action="${base}/${a.id}/remove">${csrfField(csrf)}<button type="submit" aria-label="Remove ${a.label}">Remove</button></form></td></tr>`;
    }),
  );
  return html`<section>
<h3>Calendar accounts in ${workspace.name}</h3>
${accounts.length === 0 ? html`<p>No calendar account connected yet.</p>` : html`<table class="stack"><thead><tr><th>Account</th><th>Status</th><th>Calendars</th><th><span class="sr-only">Account actions</span></th></tr></thead><tbody>${rows}</tbody></table>`}
${typedKinds.map((kind) => connectForm(kind, { workspaceId: workspace.id, action: `${base}/${kind}`, csrf, signInEmail: user.email }, form))}
${ctx.connectors.google ? html`<form class="inline" method="post" action="${base}/google">${csrfField(csrf)}<button type="submit">Connect Google Calendar</button></form> ` : ''}
${ctx.connectors.microsoft ? html`<form class="inline" method="post" action="${base}/microsoft">${csrfField(csrf)}<button type="submit">Connect Microsoft 365</button></form>` : ''}
</section>`;
}

export type RenderAccount = (
  request: FastifyRequest,
  user: User,
  messages: { error?: string; connectForm?: ConnectFormState },
) => Promise<string>;

type AccountParams = { Params: { workspaceId: string; accountId: string } };
type CalendarParams = { Params: { workspaceId: string; accountId: string; calendarId: string } };

export function registerConnectionRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  render: RenderAccount,
  copies: CalendarCopies | undefined,
  grants: GrantsDeps,
): void {
  const deps = accountDeps(ctx);
  // A sync is several provider requests: the page waits for one request's time, 10 s at most,
  // then says the sync goes on.
  const syncWaitMs = Math.min(ctx.config.providerTimeoutMs, 10_000);
  const act = async (request: FastifyRequest, reply: FastifyReply, run: (user: User) => Promise<string>) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    try {
      return reply.redirect(`/account?notice=${await run(user)}`, 303);
    } catch (error) {
      const e = correctable(error, ['provider_unavailable', 'payload_too_large', 'reconnect_required']);
      return reply
        .code(e.status)
        .type('text/html; charset=utf-8')
        .send(await render(request, user, { error: e.message }));
    }
  };

  // The forms for accounts connected by what the person types (no provider sign-in): an error
  // is shown on the form, which keeps what was typed.
  const credentialsOf = { caldav: caldavCredentials, ics: icsCredentials };
  for (const kind of typedKinds) {
    app.post<{ Params: { workspaceId: string } }>(
      `/account/workspaces/:workspaceId/connections/${kind}`,
      { config: { page: true } },
      async (request, reply) => {
        const user = requireUser(request, reply);
        if (user === undefined) return reply;
        const form = formOf(request.body);
        const owner = { userId: user.id, workspaceId: request.params.workspaceId };
        try {
          const credentials = credentialsOf[kind](form);
          await addConnection(deps, owner, credentials, connectionLabel(credentials));
        } catch (error) {
          const e = correctable(error, ['provider_unavailable', 'payload_too_large', 'reconnect_required']);
          const connectForm = connectFormState(owner.workspaceId, kind, form, e);
          return sendHtml(reply, await render(request, user, { connectForm }), e.status);
        }
        return reply.redirect('/account?notice=connected', 303);
      },
    );
  }

  app.post<AccountParams>(
    '/account/workspaces/:workspaceId/connections/:accountId/reconnect',
    { config: { page: true } },
    async (request, reply) => {
      const user = requireUser(request, reply);
      if (user === undefined) return reply;
      const account = await ownConnection(deps, user.id, request.params.accountId);
      if (account.provider === 'google' || account.provider === 'microsoft') {
        return reply.redirect(
          await startConnectFlow(
            deps,
            account.provider,
            { userId: user.id, workspaceId: account.workspaceId },
            account.id,
          ),
          303,
        );
      }
      return act(request, reply, async () => {
        const password = formOf(request.body).password;
        if (typeof password !== 'string' || password === '')
          throw invalidField('password', 'Enter the new app password.');
        await reconnectWithPassword(deps, account, password);
        return 'reconnected';
      });
    },
  );

  app.post<{ Params: { workspaceId: string; kind: string } }>(
    '/account/workspaces/:workspaceId/connections/:kind(^google$|^microsoft$)',
    { config: { page: true } },
    async (request, reply) => {
      const user = requireUser(request, reply);
      if (user === undefined) return reply;
      const owner = { userId: user.id, workspaceId: request.params.workspaceId };
      return reply.redirect(
        await startConnectFlow(deps, request.params.kind as OAuthProviderKind, owner, null),
        303,
      );
    },
  );

  app.get<{ Params: { kind: string }; Querystring: Record<string, string | undefined> }>(
    '/account/connect/:kind(^google$|^microsoft$)/callback',
    { config: { page: true } },
    (request, reply) =>
      act(request, reply, (user) =>
        finishConnectFlow(deps, request.params.kind as OAuthProviderKind, user.id, request.query),
      ),
  );

  app.post<AccountParams>(
    '/account/workspaces/:workspaceId/connections/:accountId/remove',
    { config: { page: true } },
    (request, reply) =>
      act(request, reply, async (user) => {
        await removeConnection({ ...deps, forgetGrants: grants.forget }, user.id, request.params.accountId);
        return 'removed';
      }),
  );

  app.post<AccountParams>(
    '/account/workspaces/:workspaceId/connections/:accountId/calendars/availability',
    { config: { page: true } },
    (request, reply) =>
      act(request, reply, async (user) => {
        const counting = formOf(request.body).counting;
        const ids = counting === undefined ? [] : [counting].flat();
        if (ids.some((id) => typeof id !== 'string')) throw invalidField('counting', 'Choose calendars.');
        await chooseCountingCalendars(deps, user.id, request.params.accountId, ids as string[]);
        return 'availability';
      }),
  );

  app.post<CalendarParams>(
    '/account/workspaces/:workspaceId/connections/:accountId/calendars/:calendarId/sync',
    { config: { page: true } },
    async (request, reply) => {
      const user = requireUser(request, reply);
      if (user === undefined) return reply;
      // Another person's account or calendar is refused like one that does not exist.
      const account = await ownConnection(deps, user.id, request.params.accountId);
      const [calendar] = await findCalendars(ctx.db, [request.params.calendarId]);
      if (calendar?.accountId !== account.id) throw new AppError('not_found', 'No such calendar.');
      const outcome =
        copies === undefined ? 'gone' : await waitAtMost(copies.syncNow(calendar.id), syncWaitMs);
      return reply.redirect(
        `/account?notice=${outcome === undefined ? 'syncStarted' : syncNotices[outcome]}`,
        303,
      );
    },
  );
}
