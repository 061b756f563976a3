/**
 * /account/working-hours: the person's own working hours (weekdays, a start and an end, their
 * zone). Meeting times colleagues look for with them stay inside these. A wrong field is shown
 * again with what was typed and the error beside it; nothing is saved.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { weekdays } from '../../domain/eventRecurrence.ts';
import type { WorkingHours } from '../../domain/workingHours.ts';
import type { AppError } from '../../errors.ts';
import { forgetWorkingHours, formDays, ownWorkingHours, setWorkingHours } from '../../people/workingHours.ts';
import type { User } from '../../store/users.ts';
import { fieldError } from '../fieldError.ts';
import { correctable, type Form, formOf, sendHtml } from '../forms.ts';
import { html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { requireUser } from '../visitor.ts';

const path = '/account/working-hours';

const notices: Record<string, string> = {
  saved: 'Your working hours were saved.',
  cleared: 'Your working hours were removed: none are known now.',
};

/** What the form shows: the saved hours (a form to remove them only then), or what was typed with the error of one field. */
interface FormState {
  days: readonly string[];
  start: string;
  end: string;
  timeZone: string;
  error?: { field: string; message: string };
}

const stateOf = (hours: WorkingHours | undefined): FormState =>
  hours === undefined
    ? { days: weekdays.slice(0, 5), start: '09:00', end: '17:00', timeZone: '' }
    : { ...hours };

const typed = (form: Form, error: AppError): FormState => {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const field = typeof error.details?.field === 'string' ? error.details.field : 'days';
  return {
    days: formDays(form.days),
    start: text(form.start),
    end: text(form.end),
    timeZone: text(form.timeZone),
    error: { field, message: error.message },
  };
};

const dayNames = (day: string) => day[0]!.toUpperCase() + day.slice(1);

function hoursPage(request: FastifyRequest, user: User, state: FormState, saved: boolean, notice?: string) {
  const csrf = request.visitor.csrfToken;
  const wrong = (field: string) => state.error?.field === field;
  const shown = (field: string) => fieldError(field, wrong(field) ? state.error?.message : undefined);
  const errorFor = (field: string) => shown(field).line;
  const invalid = (field: string) => shown(field).attributes;
  return page(
    { title: 'Working hours', user, csrfToken: csrf, notice },
    html`<section>
<h2>Your working hours</h2>
${saved || state.error !== undefined ? '' : html`<p>None saved yet: no working hours are known for you. The form starts from Monday to Friday, 09:00 to 17:00.</p>`}
<p>Meeting times found with you stay inside these, in your own time zone, for people of your workspaces who may see when you are busy. Only the times are shared.</p>
<form method="post" action="${path}">
  ${csrfField(csrf)}
  <fieldset${wrong('days') ? html` aria-describedby="days-error"` : ''}><legend>Days</legend>
  ${weekdays.map(
    (day) =>
      html`<label><input type="checkbox" name="days" value="${day}"${state.days.includes(day) ? html` checked` : ''}> ${dayNames(day)}</label>`,
  )}
  </fieldset>
  ${errorFor('days')}
  <label for="start">Start (HH:MM)</label>
  <input id="start" name="start" type="time" required value="${state.start}"${invalid('start')}>
  ${errorFor('start')}
  <label for="end">End (HH:MM)</label>
  <input id="end" name="end" type="time" required value="${state.end}"${invalid('end')}>
  ${errorFor('end')}
  <label for="timeZone">Time zone (IANA, e.g. Europe/Berlin)</label>
  <input id="timeZone" name="timeZone" type="text" required autocomplete="off" value="${state.timeZone}"${invalid('timeZone')}>
  ${errorFor('timeZone')}
  <div><button type="submit" class="primary">Save working hours</button></div>
</form>
${
  saved
    ? html`<form method="post" action="${path}/clear">
  ${csrfField(csrf)}
  <div><button type="submit">Remove my working hours</button></div>
</form>`
    : ''
}
<p><a href="/account">Back to your account</a></p>
</section>`,
  );
}

type NoticeQuery = { Querystring: { notice?: string } };

export function registerWorkingHoursPage(app: FastifyInstance, ctx: AppContext): void {
  app.get<NoticeQuery>(path, { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    const hours = await ownWorkingHours(ctx.db, user.id);
    const notice = notices[request.query.notice ?? ''];
    return sendHtml(reply, hoursPage(request, user, stateOf(hours), hours !== undefined, notice));
  });

  app.post(path, { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    const form = formOf(request.body);
    try {
      await setWorkingHours(ctx.db, ctx.clock, user.id, form);
    } catch (error) {
      const e = correctable(error, ['invalid_time_zone']);
      return sendHtml(reply, hoursPage(request, user, typed(form, e), false), e.status);
    }
    return reply.redirect(`${path}?notice=saved`, 303);
  });

  app.post(`${path}/clear`, { config: { page: true } }, async (request, reply) => {
    const user = requireUser(request, reply);
    if (user === undefined) return reply;
    await forgetWorkingHours(ctx.db, user.id);
    return reply.redirect(`${path}?notice=cleared`, 303);
  });
}
