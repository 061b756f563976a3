import type { FastifyInstance } from 'fastify';
import type { Authorization } from '../../auth/setup.ts';
import type { CalendarDeps } from '../../calendars/calendarDeps.ts';
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

/** The pages for people; the calendar services serve "Sync now" (copies) and the consent preview (reads). */
export function registerPages(
  app: FastifyInstance,
  ctx: AppContext,
  auth: Authorization,
  administration: AdministrationDeps,
  calendars: CalendarDeps,
): void {
  registerIcon(app);
  registerSignInPages(app, ctx, auth);
  registerOnboardingPages(app, ctx);
  registerPasswordResetPages(app, ctx);
  registerAccountPages(app, ctx, auth, calendars.copies);
  registerWorkingHoursPage(app, ctx);
  registerAdminPages(app, ctx, administration);
  registerAuthorizePages(app, ctx, auth, calendars);
}
