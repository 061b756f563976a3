/**
 * The pages between an application's authorization request and its answer: sign-in (the site's
 * own), workspace choice (skipped when only one workspace lets the application in), consent
 * with calendars and levels. Allow records the grant; Deny answers `access_denied`.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionResults } from 'oidc-provider';
import { offerIn, recordConsent, type WorkspaceOffer, workspacesForClient } from '../../auth/grants.ts';
import type { Authorization } from '../../auth/setup.ts';
import type { CalendarDeps } from '../../calendars/calendarDeps.ts';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { checkConsent } from '../../policy/consent.ts';
import type { User } from '../../store/users.ts';
import { correctable, formOf, sendHtml } from '../forms.ts';
import { allowFormTarget } from '../formTargets.ts';
import { html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { readerTime } from '../readerTime.ts';
import { requireUser } from '../visitor.ts';
import { scopeWords } from '../words.ts';
import { type CurrentChoice, calendarChoiceFields, choiceOf, errorAbove } from './calendarChoice.ts';
import { consentPreview } from './consentPreview.ts';

/** The consent page's script: the preview redrawn as the choice changes (Preview does it without). */
const previewScriptPath = '/consent-preview.js';
const previewScript = readFileSync(new URL('../assets/consentPreview.js', import.meta.url), 'utf8');

type UidParams = { Params: { uid: string }; Querystring: { workspace?: string } };

interface Pending {
  uid: string;
  prompt: string;
  clientId: string;
  clientName: string;
  redirectHost: string;
  requestedScopes: string[];
  sessionAccount: string | undefined;
}

const expired = () =>
  new AppError(
    'not_found',
    'This authorization request has ended or expired. Go back to the application and start again.',
  );

export function registerAuthorizePages(
  app: FastifyInstance,
  ctx: AppContext,
  auth: Authorization,
  calendars: CalendarDeps,
): void {
  const provider = auth.server.provider;

  async function pending(request: FastifyRequest<UidParams>, reply: FastifyReply): Promise<Pending> {
    let details: Awaited<ReturnType<typeof provider.interactionDetails>>;
    try {
      details = await provider.interactionDetails(request.raw, reply.raw);
    } catch {
      throw expired();
    }
    if (details.uid !== request.params.uid) throw expired();
    const clientId = String(details.params.client_id);
    const client = await provider.Client.find(clientId);
    if (client === undefined) throw expired();
    const redirect = URL.parse(String(details.params.redirect_uri));
    // Allow and Deny end, through redirects, at the client's redirect URI.
    allowFormTarget(reply, redirect?.origin);
    return {
      uid: details.uid,
      prompt: details.prompt.name,
      clientId,
      clientName: client.clientName ?? clientId,
      redirectHost: redirect?.host ?? '',
      requestedScopes: String(details.params.scope ?? '')
        .split(' ')
        .filter(Boolean),
      sessionAccount: details.session?.accountId,
    };
  }

  const finish = async (
    request: FastifyRequest,
    reply: FastifyReply,
    result: InteractionResults,
    merge = true,
  ) => {
    const to = await provider.interactionResult(request.raw, reply.raw, result, {
      mergeWithLastSubmission: merge,
    });
    return reply.redirect(to, 303);
  };

  const deny = (request: FastifyRequest, reply: FastifyReply, description: string) =>
    finish(request, reply, { error: 'access_denied', error_description: description }, false);

  /** Consent, with the choice made so far (Preview keeps it) and what the app would see with it. */
  const consentPage = async (
    request: FastifyRequest,
    user: User,
    p: Pending,
    offer: WorkspaceOffer,
    options: { error?: AppError; chosen?: CurrentChoice } = {},
  ) => {
    const { chosen } = options;
    const error = errorAbove(offer, options.error);
    const csrf = request.visitor.csrfToken;
    const action = `/authorize/${p.uid}`;
    const denyForm = html`<form method="post" action="${action}/deny">${csrfField(csrf)}<button type="submit" class="secondary">Deny</button></form>`;
    if (offer.scopes.length === 0) {
      return page(
        { title: `${p.clientName} wants access`, user, csrfToken: csrf, error },
        html`<p>The workspace <strong>${offer.workspace.name}</strong> does not allow the access this application asks for.</p>${denyForm}`,
      );
    }
    const preview =
      offer.calendars.length === 0
        ? ''
        : await consentPreview(
            calendars,
            {
              userId: user.id,
              clientId: p.clientId,
              clientName: p.clientName,
              offer,
              calendars: [...(chosen?.calendars ?? [])],
              privateDetails: chosen?.privateDetails ?? false,
            },
            await readerTime(ctx, user.id),
          );
    return page(
      {
        title: `Allow ${p.clientName} to use your calendars?`,
        user,
        csrfToken: csrf,
        error,
        ...(offer.calendars.length === 0 ? {} : { script: previewScriptPath }),
      },
      html`<p><strong>${p.clientName}</strong> (<code>${p.clientId}</code>) will receive access at <strong>${p.redirectHost}</strong>, in the workspace <strong>${offer.workspace.name}</strong>.</p>
<p>It will be able to:</p>
<ul>${offer.scopes.map((s) => html`<li>${scopeWords[s]}</li>`)}</ul>
${
  offer.withheld.length === 0
    ? ''
    : html`<p class="muted" id="withheld">It also asked to ${offer.withheld.map((s) => scopeWords[s].toLowerCase()).join(' and ')}, which the workspace <strong>${offer.workspace.name}</strong> does not allow: it will not be able to. A workspace administrator can allow it in the workspace policy.</p>`
}
${
  offer.calendars.length === 0
    ? html`<p>You have no calendars connected in this workspace yet. <a href="/account">Connect a calendar</a>, then come back to this page.</p>${denyForm}`
    : html`<div class="consent">
<form method="post" action="${action}/consent" id="consent" data-preview="${action}/preview">
  ${csrfField(csrf)}
  <input type="hidden" name="workspace" value="${offer.workspace.id}">
  ${calendarChoiceFields(offer, chosen, options.error)}
</form>
${preview}
</div>
<div class="actions">
  <button type="submit" class="primary" form="consent">Allow</button>
  <button type="submit" class="secondary" form="deny">Deny</button>
  <button type="submit" form="consent" formaction="${action}/preview">Preview</button>
</div>
<form id="deny" method="post" action="${action}/deny">${csrfField(csrf)}</form>`
}`,
    );
  };

  const workspaceChoice = (
    request: FastifyRequest,
    user: User,
    p: Pending,
    workspaces: Array<{ id: string; name: string }>,
  ) =>
    page(
      { title: `Allow ${p.clientName} to use your calendars?`, user, csrfToken: request.visitor.csrfToken },
      html`<p>Choose the workspace whose calendars <strong>${p.clientName}</strong> may use.</p>
<form method="get" action="/authorize/${p.uid}">
  <fieldset><legend>Workspace</legend>
  ${workspaces.map(
    (
      w,
      i,
    ) => html`<div><input type="radio" id="ws-${w.id}" name="workspace" value="${w.id}"${i === 0 ? html` checked` : ''}>
  <label class="inline" for="ws-${w.id}">${w.name}</label></div>`,
  )}
  </fieldset>
  <button type="submit" class="primary">Continue</button>
</form>
<form method="post" action="/authorize/${p.uid}/deny">${csrfField(request.visitor.csrfToken)}<button type="submit" class="secondary">Deny</button></form>`,
    );

  app.get<UidParams>('/authorize/:uid', { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    const p = await pending(request, reply);
    if (p.prompt === 'login') return finish(request, reply, { login: { accountId: user.id } }, false);
    if (p.prompt !== 'consent' || p.sessionAccount !== user.id) throw expired();

    const workspaces = await workspacesForClient(ctx.db, user.id, p.clientId);
    if (workspaces.length === 0) {
      return deny(request, reply, 'None of the workspaces of this person allows this application.');
    }
    const chosen = request.query.workspace ?? (workspaces.length === 1 ? workspaces[0]!.id : undefined);
    if (chosen === undefined) return sendHtml(reply, workspaceChoice(request, user, p, workspaces));
    const offer = await offerIn(ctx.db, user.id, chosen, p.clientId, p.requestedScopes);
    return sendHtml(reply, await consentPage(request, user, p, offer));
  });

  /** Consent again with the levels chosen kept, and the preview read at them (the page's script asks too). */
  // Each preview reads the calendars chosen (the script asks at every change): a person's pace, bounded.
  const previewLimit = { max: 60, timeWindow: '1 minute' };
  app.post<UidParams>(
    '/authorize/:uid/preview',
    { config: { page: true, rateLimit: previewLimit } },
    async (request, reply) => {
      const user = requireUser(request, reply);
      if (user === undefined) return reply;
      const p = await pending(request, reply);
      if (p.prompt !== 'consent' || p.sessionAccount !== user.id) throw expired();
      const form = formOf(request.body);
      const offer = await offerIn(
        ctx.db,
        user.id,
        String(form.workspace ?? ''),
        p.clientId,
        p.requestedScopes,
      );
      const choice = choiceOf(form);
      try {
        const calendars = choice.calendars.length === 0 ? [] : checkConsent(offer, choice);
        const chosen = { calendars, privateDetails: choice.privateDetails };
        return sendHtml(reply, await consentPage(request, user, p, offer, { chosen }));
      } catch (error) {
        const e = correctable(error);
        return sendHtml(reply, await consentPage(request, user, p, offer, { error: e }), e.status);
      }
    },
  );

  app.get(previewScriptPath, (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(previewScript),
  );

  app.post<UidParams>('/authorize/:uid/consent', { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    const p = await pending(request, reply);
    if (p.prompt !== 'consent' || p.sessionAccount !== user.id) throw expired();
    const form = formOf(request.body);
    const workspaceId = typeof form.workspace === 'string' ? form.workspace : '';
    try {
      const grantId = await recordConsent(auth.grants, {
        userId: user.id,
        workspaceId,
        clientId: p.clientId,
        clientName: p.clientName,
        requestedScopes: p.requestedScopes,
        choice: choiceOf(form),
      });
      ctx.metrics.consent('given');
      return finish(request, reply, { consent: { grantId } });
    } catch (error) {
      const e = correctable(error);
      const offer = await offerIn(ctx.db, user.id, workspaceId, p.clientId, p.requestedScopes);
      return sendHtml(reply, await consentPage(request, user, p, offer, { error: e }), e.status);
    }
  });

  app.post<UidParams>('/authorize/:uid/deny', { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    await pending(request, reply);
    ctx.metrics.consent('denied');
    return deny(request, reply, 'The person did not allow access.');
  });
}
