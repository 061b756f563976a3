/**
 * The account page, in the order people come for: their assistants, their calendars, what apps
 * changed; the first steps while they are not all done (after the rest once they are). Profile and
 * password have a page of their own (profile.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authorization } from '../../auth/setup.ts';
import type { CalendarCopies } from '../../calendars/copies.ts';
import type { AppContext } from '../../context.ts';
import { liveGrantsOfUser } from '../../store/accessGrants.ts';
import { accountsOf } from '../../store/connectedAccounts.ts';
import type { User } from '../../store/users.ts';
import { workspacesOf } from '../../store/workspaces.ts';
import { sendHtml } from '../forms.ts';
import { html } from '../html.ts';
import { page } from '../layout.ts';
import { readerTime } from '../readerTime.ts';
import { requireUser } from '../visitor.ts';
import { appWritesSection } from './appWrites.ts';
import { assistantsSection, connectedAppNotices, registerConnectedAppRoutes } from './connectedApps.ts';
import type { ConnectFormState } from './connectForms.ts';
import { connectionNotices, connectionsSection, registerConnectionRoutes } from './connections.ts';
import { gettingStartedSection } from './gettingStarted.ts';
import { registerProfilePages } from './profile.ts';

const notices: Record<string, string> = {
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
    const time = await readerTime(ctx, user.id);
    const workspaces = await workspacesOf(ctx.db, user.id);
    const connections = await Promise.all(
      workspaces.map((w) => connectionsSection(ctx, user, w, csrf, time, connectForm)),
    );
    const calendarsConnected = (await accountsOf(ctx.db, user.id)).length > 0;
    const grants = await liveGrantsOfUser(ctx.db, user.id);
    const appsAllowed = grants.length > 0;
    const start = gettingStartedSection({
      mcpUrl: `${ctx.config.baseUrl}/mcp`,
      calendarsConnected,
      appsAllowed,
    });
    const firstSteps = !(calendarsConnected && appsAllowed);
    return page(
      { title: 'Your account', user, csrfToken: csrf, ...messages },
      html`<p class="muted">Times are shown in ${time.zone}. <a href="/account/profile">Profile and password</a> · <a href="/account/working-hours">Your working hours</a></p>
${firstSteps ? start : ''}
<section id="assistants">
<h2>Your assistants</h2>
${await assistantsSection(ctx, grants, csrf, time)}
</section>
<section id="calendars">
<h2>Your calendars</h2>
${workspaces.length === 0 ? html`<p>Join a workspace to connect calendar accounts.</p>` : connections}
</section>
<section id="changes">
<h2>Changes made by apps</h2>
${await appWritesSection(ctx, user, time)}
</section>
${firstSteps ? '' : start}`,
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
  registerProfilePages(app, ctx);
}
