import type { FastifyInstance } from 'fastify';
import type { Authorization } from '../../auth/setup.ts';
import type { CalendarCopies } from '../../calendars/copies.ts';
import type { AppContext } from '../../context.ts';
import type { AdministrationDeps } from '../../people/administrationPorts.ts';
import { registerAccountPages } from './account.ts';
import { registerAdminPages } from './admin.ts';
import { registerAuthorizePages } from './authorize.ts';
import { registerIcon } from './icon.ts';
import { registerOnboardingPages } from './onboarding.ts';
import { registerPasswordResetPages } from './passwordReset.ts';
import { registerSignInPages } from './signIn.ts';
import { registerWorkingHoursPage } from './workingHours.ts';

/** The pages for people; `copies` serves "Sync now" on the account page. */
export function registerPages(
  app: FastifyInstance,
  ctx: AppContext,
  auth: Authorization,
  administration: AdministrationDeps,
  copies: CalendarCopies | undefined,
): void {
  registerIcon(app);
  registerSignInPages(app, ctx, auth);
  registerOnboardingPages(app, ctx);
  registerPasswordResetPages(app, ctx);
  registerAccountPages(app, ctx, auth, copies);
  registerWorkingHoursPage(app, ctx);
  registerAdminPages(app, ctx, administration);
  registerAuthorizePages(app, ctx, auth);
}
