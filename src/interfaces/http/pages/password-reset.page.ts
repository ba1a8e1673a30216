import escapeHtml from 'escape-html';
import type { PasswordResetView } from '../../../application/password-reset/inspect-password-reset.use-case';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../domain/users/password-policy';
import { expiryTime, layout } from './page-layout';

import type { Page } from './html-reply';





/**
 * The page a reset link opens (issue #10). Rendering it reads the reset and changes nothing (mail scanners
 * open links); only the form's POST uses the token up. `refused`: the form again after a refused post.
 */
export function renderPasswordResetPage(
  view: PasswordResetView,
  token: string,
  refused?: { status: number; code: string; message: string },
  basePath = '',
): Page {
  switch (view.status) {
    case 'unknown':
      return {
        status: 404,
        html: layout('Link not valid', `<h1>This password-reset link is not valid</h1>
<p id="state" data-state="unknown">It may have been replaced by a newer one. Ask for a new link from the sign-in page.</p>`),
      };
    case 'used':
      return {
        status: 410,
        html: layout('Link already used', `<h1>This password-reset link has been used already</h1>
<p id="state" data-state="used">Sign in with your new password, or ask for a new link.</p>`),
      };
    case 'expired':
      return {
        status: 410,
        html: layout('Link expired', `<h1>This password-reset link has expired</h1>
<p id="state" data-state="expired">It expired on ${expiryTime(view.expiresAt)}. Ask for a new link.</p>`),
      };
    case 'valid': {
      const error = refused ? escapeHtml(refused.message) : '';
      const result = refused
        ? `<p id="result" role="status" aria-live="polite" class="error" data-outcome="${escapeHtml(refused.code)}">${error}</p>`
        : '<p id="result" role="status" aria-live="polite"></p>';
      return {
        status: refused?.status ?? 200,
        html: layout('Choose a new password', `<h1>Choose a new password</h1>
<div id="reset">
<p id="state" data-state="valid">For <strong>${escapeHtml(view.email)}</strong>. Every session of this account ends once it is set.</p>
<p id="expiry" class="hint">This link works once and expires on ${expiryTime(view.expiresAt)}.</p>
<form id="reset-form" method="post" action="${escapeHtml(basePath)}/password-reset" data-api="${escapeHtml(basePath)}/v1/auth/password-reset/confirm" data-token="${escapeHtml(token)}" novalidate>
  <input type="hidden" name="token" value="${escapeHtml(token)}">
  <label for="password">New password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}"${refused ? ' aria-invalid="true" aria-describedby="result" autofocus' : ''}>
  <p class="hint">${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters. A long passphrase is best.</p>
  <button type="submit" id="submit">Set the password</button>
</form>
</div>
${result}
<script src="${escapeHtml(basePath)}/password-reset.js" defer></script>`),
      };
    }
  }
}

/** What a post without the script answers once the password is set: what the script shows in its place. */
export function renderPasswordSetPage(): Page {
  return {
    status: 200,
    html: layout('Password set', `<h1>Password set</h1>
<p id="result" role="status" class="ok" data-outcome="password-set">Your password is set. Sign in with it; every other session has ended.</p>`),
  };
}

/** With JavaScript the page posts the JSON API and stays; served as a file (the CSP allows no inline script). */
export const PASSWORD_RESET_SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('reset-form');
  if (!form) return;
  var result = document.getElementById('result');
  var button = document.getElementById('submit');
  var input = form.elements.password;
  function setResult(kind, outcome, text) {
    result.className = kind;
    result.setAttribute('data-outcome', outcome);
    result.textContent = text;
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    button.disabled = true;
    input.removeAttribute('aria-invalid');
    setResult('', 'pending', 'Setting the password…');
    fetch(form.getAttribute('data-api'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: form.getAttribute('data-token'), password: input.value })
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        if (response.ok) {
          document.getElementById('reset').hidden = true;
          setResult('ok', 'password-set', 'Your password is set. Sign in with it; every other session has ended.');
          return;
        }
        button.disabled = false;
        var message = (body.errors || []).map(function (p) { return 'Password ' + p.message; }).join('; ');
        input.setAttribute('aria-invalid', 'true');
        setResult('error', body.code || 'error', message || body.detail || 'Something went wrong.');
        input.focus();
      });
    }).catch(function () {
      button.disabled = false;
      setResult('error', 'unreachable', 'The service could not be reached. Try again.');
    });
  });
})();
`;
