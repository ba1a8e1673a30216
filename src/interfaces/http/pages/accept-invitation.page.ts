import type { InvitationView } from '../../../application/invitations/inspect-invitation.use-case';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../domain/users/password-policy';
import escapeHtml from 'escape-html';

const STYLE = `
  body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1f2328; }
  h1 { font-size: 1.4rem; }
  label { display: block; margin-top: 1rem; font-weight: 600; }
  input { width: 100%; padding: .5rem; margin-top: .25rem; box-sizing: border-box; font-size: 1rem; }
  button { margin-top: 1.5rem; padding: .6rem 1.2rem; font-size: 1rem; cursor: pointer; }
  .hint { color: #59636e; font-size: .85rem; }
  .error { color: #b42318; }
  .ok { color: #1a7f37; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>`;
}

/**
 * The page an invitation link opens. Rendering it reads the invitation and changes nothing,
 * so a mail scanner that fetches the link burns nothing; only the form's POST consumes the token.
 */
export function renderAcceptInvitationPage(view: InvitationView, token: string): { status: number; html: string } {
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
<p id="state" data-state="expired">It expired on ${escapeHtml(view.expiresAt.toISOString())}. Ask the person who invited you to send a new one.</p>`,
        ),
      };
    case 'valid':
      return {
        status: 200,
        html: layout(
          'Accept your invitation',
          `<h1>Welcome</h1>
<p id="state" data-state="valid">You were invited as <strong>${escapeHtml(view.email)}</strong>. Choose your username and password to join.</p>
<form id="accept" data-token="${escapeHtml(token)}" novalidate>
  <label for="name">Full name</label>
  <input id="name" name="name" autocomplete="name" required maxlength="200" value="${escapeHtml(view.name ?? '')}">
  <label for="username">Username</label>
  <input id="username" name="username" autocomplete="username" required minlength="3" maxlength="64" pattern="[A-Za-z0-9._\\-]{3,64}">
  <p class="hint">3 to 64 letters, digits, dots, underscores or hyphens.</p>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}">
  <p class="hint">${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters. A long passphrase is best.</p>
  <button type="submit" id="submit">Join</button>
  <p id="result" role="status" aria-live="polite"></p>
</form>
<p class="hint">This link expires on ${escapeHtml(view.expiresAt.toISOString())}.</p>
<script src="/invitations/accept.js" defer></script>`,
        ),
      };
  }
}

/** Served as its own file: the Content-Security-Policy allows scripts from this origin only, none inline. */
export const ACCEPT_INVITATION_SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('accept');
  if (!form) return;
  var result = document.getElementById('result');
  var button = document.getElementById('submit');
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    button.disabled = true;
    result.className = '';
    result.textContent = 'Joining…';
    fetch('/v1/invitations/accept', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        token: form.getAttribute('data-token'),
        name: form.elements.name.value,
        username: form.elements.username.value,
        password: form.elements.password.value
      })
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        if (response.ok) {
          form.querySelectorAll('input').forEach(function (input) { input.disabled = true; });
          result.className = 'ok';
          result.setAttribute('data-outcome', 'joined');
          result.textContent = 'You have joined. Sign in as ' + body.username + '.';
          return;
        }
        button.disabled = false;
        result.className = 'error';
        result.setAttribute('data-outcome', body.code || 'error');
        var details = (body.errors || []).map(function (e) { return e.field + ' ' + e.message; }).join('; ');
        result.textContent = (body.detail || 'Something went wrong.') + (details ? ' (' + details + ')' : '');
      });
    }).catch(function () {
      button.disabled = false;
      result.className = 'error';
      result.textContent = 'The service could not be reached. Try again.';
    });
  });
})();
`;
