import type { InvitationView } from '../../../application/invitations/inspect-invitation.use-case';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../domain/users/password-policy';
import escapeHtml from 'escape-html';
import type { Page } from './html-reply';
import { expiryTime, layout } from './page-layout';
import { FIELD_LABELS, FORM_FIELDS, type FormField, type FormProblems } from './accept-invitation.problems';

export { ACCEPT_INVITATION_SCRIPT } from './accept-invitation.script';

export interface AcceptPageSettings {
  /** Where a person goes once joined (APP_URL); null: the page says to sign in to the application. */
  appUrl: string | null;
  /** PUBLIC_URL's path (`basePathOf`), which the form and its script post under. */
  basePath: string;
}

/** A post the server refused (no script): the form again with its status, what was entered (never the password), the problems. */
export interface RefusedForm extends FormProblems {
  status: number;
  name: string;
  username: string;
}





/**
 * One input with its label, hint and error. Without a problem the error paragraph stays empty and
 * hidden until the script fills it; the script (or the server, after a refused post without it) also
 * adds its id to aria-describedby and sets aria-invalid, so a screen reader reads the problem with
 * the field, once. `autofocus`: the first invalid field of a refused post, as the script focuses it.
 */
function field(id: FormField, input: string, shown: { error?: string; autofocus?: boolean; hint?: string } = {}): string {
  const { error, autofocus, hint } = shown;
  const hintId = hint ? `${id}-hint` : undefined;
  const describedBy = [error ? `${id}-error` : undefined, hintId].filter(Boolean).join(' ');
  const state = `${error ? ' aria-invalid="true"' : ''}${describedBy ? ` aria-describedby="${describedBy}"` : ''}${autofocus ? ' autofocus' : ''}`;
  return `  <label for="${id}">${escapeHtml(FIELD_LABELS[id])}</label>
  <p id="${id}-error" class="error field-error" data-field-error="${id}"${error ? '' : ' hidden'}>${escapeHtml(error ?? '')}</p>
  <input id="${id}" name="${id}" ${input}${state}>
${hint ? `  <p class="hint" id="${hintId}">${escapeHtml(hint)}</p>\n` : ''}`;
}

/** What the page says once joined: the link to the application when APP_URL is set. */
function nextStep(appUrl: string | null, shown: boolean): string {
  const body = appUrl
    ? `<p id="next-step">Next: <a id="app-link" href="${escapeHtml(appUrl)}">go to the application</a> and sign in with your username and password.</p>`
    : `<p id="next-step">Next: sign in to the application you were invited to, with your username and password. You can close this page.</p>`;
  return `<section id="next"${shown ? '' : ' hidden'}>
${body}
</section>`;
}

/**
 * The page an invitation link opens. Rendering it reads the invitation and changes nothing,
 * so a mail scanner that fetches the link burns nothing; only the form's POST consumes the token.
 * `refused`: the form again after a post without the script that the service refused (400, 409).
 */
export function renderAcceptInvitationPage(
  view: InvitationView,
  token: string,
  settings: AcceptPageSettings = { appUrl: null, basePath: '' },
  refused?: RefusedForm,
): Page {
  switch (view.status) {
    case 'unknown':
      return {
        status: 404,
        html: layout(
          'Invitation not found',
          `<h1>This invitation link is not valid</h1>
<p id="state" data-state="unknown">It may have been replaced by a newer invitation, or revoked. Ask the person who invited you to send a new one.</p>`,
        ),
      };
    case 'used':
      return {
        status: 410,
        html: layout(
          'Invitation already used',
          `<h1>This invitation has been used already</h1>
<p id="state" data-state="used">Your account exists: sign in with your username and password.</p>`,
        ),
      };
    case 'expired':
      return {
        status: 410,
        html: layout(
          'Invitation expired',
          `<h1>This invitation has expired</h1>
<p id="state" data-state="expired">It expired on ${expiryTime(view.expiresAt)}. Ask the person who invited you to send a new one.</p>`,
        ),
      };
    case 'valid':
      return { status: refused?.status ?? 200, html: layout('Accept your invitation', acceptForm(view, token, settings, refused)) };
  }
}

/**
 * The form posts itself (the token in a hidden field, never in the URL it posts to) and the server
 * answers with a page; when the script runs, it posts the JSON API instead and the page stays.
 * Both post from the origin's root under PUBLIC_URL's path: a relative action broke when the link was opened with a
 * trailing slash.
 */
function acceptForm(view: Extract<InvitationView, { email: string }>, token: string, settings: AcceptPageSettings, refused?: RefusedForm): string {
  const errors = refused?.fieldErrors ?? {};
  const firstInvalid = FORM_FIELDS.find((name) => errors[name] !== undefined);
  const shown = (name: FormField, hint?: string) => ({ error: errors[name], autofocus: name === firstInvalid, ...(hint ? { hint } : {}) });
  const name = refused ? refused.name : (view.name ?? '');
  const username = refused?.username ?? '';
  const result = refused
    ? `<p id="result" role="status" aria-live="polite" class="error" data-outcome="${escapeHtml(refused.code)}">${escapeHtml(refused.summary)}</p>`
    : '<p id="result" role="status" aria-live="polite"></p>';
  return `<h1>Welcome</h1>
<div id="invitation">
<p id="state" data-state="valid">You were invited as <strong>${escapeHtml(view.email)}</strong>. Choose your username and password to join.</p>
<p id="expiry" class="hint">This link works once and expires on ${expiryTime(view.expiresAt)}.</p>
<form id="accept" method="post" action="${escapeHtml(settings.basePath)}/invitations/accept" data-api="${escapeHtml(settings.basePath)}/v1/invitations/accept" data-token="${escapeHtml(token)}" novalidate>
  <input type="hidden" name="token" value="${escapeHtml(token)}">
${field('name', `autocomplete="name" required maxlength="200" value="${escapeHtml(name)}"`, shown('name'))}\
${field('username', `autocomplete="username" required minlength="3" maxlength="64" value="${escapeHtml(username)}"`, shown('username', '3 to 64 letters, digits, dots, underscores or hyphens.'))}\
${field('password', `type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}"`, shown('password', `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters. A long passphrase is best.`))}\
  <button type="submit" id="submit">Join</button>
</form>
</div>
${result}
${nextStep(settings.appUrl, false)}
<script src="${escapeHtml(settings.basePath)}/invitations/accept.js" defer></script>`;
}

/** What a post without the script answers once joined: what the script shows in its place. */
export function renderJoinedPage(username: string, settings: AcceptPageSettings): Page {
  return {
    status: 200,
    html: layout(
      'You have joined',
      `<h1>Welcome</h1>
<p id="result" role="status" class="ok" data-outcome="joined">You have joined as ${escapeHtml(username)}.</p>
${nextStep(settings.appUrl, true)}`,
    ),
  };
}
