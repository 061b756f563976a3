/**
 * The calendars an app may see and at what level: the one form part of the consent page and of a
 * connected app's Change page, and the choice it submits.
 */
import type { WorkspaceOffer } from '../../auth/grants.ts';
import { type DetailLevel, lowerDetail } from '../../domain/detailLevels.ts';
import type { AppError } from '../../errors.ts';
import { type ConsentChoice, levelsUpTo } from '../../policy/consent.ts';
import { fieldError, fieldOf } from '../fieldError.ts';
import type { Form } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { detailWords, levelShares } from '../words.ts';

/** What is chosen already (a grant being changed); nothing for a new consent. */
export interface CurrentChoice {
  calendars: ReadonlyArray<{ calendarId: string; detailLevel: DetailLevel }>;
  privateDetails: boolean;
}

/** The fields a choice's error may name: which calendars, and each calendar's level. */
const choiceFields = (offer: WorkspaceOffer): string[] => [
  'calendars',
  ...offer.calendars.map((c) => `level_${c.id}`),
];

/** The message to show above the page: an error of the choice is shown beside its field instead. */
export const errorAbove = (offer: WorkspaceOffer, error: AppError | undefined): string | undefined =>
  error === undefined || fieldOf(error, choiceFields(offer)) !== undefined ? undefined : error.message;

/** The form part; an error naming one of its fields (choiceFields) is shown beside that field. */
export function calendarChoiceFields(offer: WorkspaceOffer, current?: CurrentChoice, error?: AppError): Html {
  const field = fieldOf(error, choiceFields(offer));
  const at = (name: string, id: string) => fieldError(id, field === name ? error?.message : undefined);
  const none = at('calendars', 'calendars').line;
  const rows = offer.accounts.flatMap(({ account, calendars }) =>
    calendars.map((calendar) => ({
      account,
      calendar,
      offered: offer.calendars.find((c) => c.id === calendar.id)!,
      chosen: current?.calendars.find((c) => c.calendarId === calendar.id)?.detailLevel,
    })),
  );
  // The level follows its checkbox in the page (CSS, no script): shown once the calendar is ticked.
  return html`<fieldset${field === 'calendars' ? html` aria-describedby="calendars-error"` : ''}><legend>Calendars it may see</legend>
  ${none}
  ${rows.map(({ account, calendar, offered, chosen }) => {
    // A level chosen before the policy or the provider allowed less shows as what is read now.
    const selected = chosen === undefined ? offered.defaultLevel : lowerDetail(chosen, offered.maxLevel);
    const wrong = at(`level_${calendar.id}`, `level-${calendar.id}`);
    return html`<div class="choice">
    <input type="checkbox" id="cal-${calendar.id}" name="calendar" value="${calendar.id}"${chosen === undefined ? '' : html` checked`}>
    <label class="inline" for="cal-${calendar.id}">${calendar.name}</label> <span class="muted">(${account.label})</span>
    <div class="level"><label for="level-${calendar.id}">Detail level for ${calendar.name}</label>
    <select id="level-${calendar.id}" name="level_${calendar.id}"${wrong.attributes}>${levelsUpTo(
      offered.maxLevel,
    ).map(
      (level) =>
        html`<option value="${level}"${level === selected ? html` selected` : ''}>${detailWords[level]}</option>`,
    )}</select>${wrong.line}</div></div>`;
  })}
  </fieldset>
  ${
    offer.privateDetailsOffered
      ? html`<div><input type="checkbox" id="privateDetails" name="privateDetails"${current?.privateDetails ? html` checked` : ''}>
  <label class="inline" for="privateDetails">Include details of private events</label></div>`
      : ''
  }
  <p>What each detail level shares of an event:</p>
  <dl id="levels" class="levels">${levelShares().map(
    ({ level, shares }) => html`<dt>${detailWords[level]}</dt><dd>${shares}.</dd>`,
  )}</dl>`;
}

/** The choice a submitted form makes: the ticked calendars with their levels. */
export function choiceOf(form: Form): ConsentChoice {
  const ids = [form.calendar ?? []].flat().filter((v): v is string => typeof v === 'string');
  return {
    calendars: ids.map((calendarId) => ({ calendarId, detailLevel: form[`level_${calendarId}`] })),
    privateDetails: form.privateDetails === 'on',
  };
}
