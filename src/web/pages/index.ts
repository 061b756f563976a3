import type { FastifyInstance } from 'fastify';
import type { Authorization } from '../../auth/setup.ts';
import type { AppContext } from '../../context.ts';
import { registerAccountPages } from './account.ts';
import { registerAdminPages } from './admin.ts';
import { registerAuthorizePages } from './authorize.ts';
import { registerOnboardingPages } from './onboarding.ts';
import { registerSignInPages } from './signIn.ts';

export function registerPages(app: FastifyInstance, ctx: AppContext, auth: Authorization): void {
  registerSignInPages(app, ctx, auth);
  registerOnboardingPages(app, ctx);
  registerAccountPages(app, ctx, auth);
  registerAdminPages(app, ctx, auth);
  registerAuthorizePages(app, ctx, auth);
}
