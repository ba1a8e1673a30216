import { PASSKEY_NAME_MAX_LENGTH } from '../../../domain/mfa/passkey';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import escapeHtml from 'escape-html';
import { layout } from './page-layout';

export { ACCOUNT_SECURITY_SCRIPT } from './account-security.script';

/**
 * One's own second factors, on a page the service serves (#24): sign in (the password, then a passkey, a code or a
 * recovery code),
 * register a passkey (on the password, or a current authenticator code), see one's passkeys. Everything happens in its script (account-security.script.ts) against the
 * API; the tokens live in that script's memory only, never in storage a later page could read. `basePath`: PUBLIC_URL's
 * path (basePathOf), which the script and the API calls are requested under, as a proxy that strips it serves them.
 */
export function renderAccountSecurityPage(basePath = ''): string {
  return layout(
    'Account security',
    `<h1>Account security</h1>
<section id="signin" data-base="${escapeHtml(basePath)}">
<form id="password-step" novalidate>
  <label for="username">Username</label>
  <input id="username" name="username" autocomplete="username webauthn" required maxlength="254">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="${PASSWORD_MAX_LENGTH}">
  <button type="submit" id="sign-in">Sign in</button>
</form>
<div id="second-step" hidden>
  <p>Confirm it is you with a second factor.</p>
  <button type="button" id="use-passkey" hidden>Use a passkey</button>
  <form id="code-step" hidden novalidate>
    <label for="code">Code from your authenticator app</label>
    <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{3} ?[0-9]{3}" maxlength="7">
    <button type="submit" id="send-code">Verify</button>
  </form>
  <form id="recovery-step" hidden novalidate>
    <label for="recovery-code">Or a recovery code (if you lost your authenticator)</label>
    <input id="recovery-code" name="recovery_code" autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="64">
    <button type="submit" id="send-recovery-code">Use the recovery code</button>
  </form>
</div>
</section>
<section id="account" hidden>
<p>Signed in as <strong id="who"></strong>.</p>
<h2>Passkeys</h2>
<ul id="passkeys"></ul>
<p id="no-passkeys" class="hint" hidden>No passkey yet.</p>
<form id="add-passkey" novalidate>
  <label for="passkey-name">Name of the new passkey</label>
  <input id="passkey-name" name="name" maxlength="${PASSKEY_NAME_MAX_LENGTH}" placeholder="This laptop">
  <label for="passkey-proof">Your password (or your authenticator app’s current code), to register a passkey</label>
  <input id="passkey-proof" name="password" type="password" autocomplete="current-password" required maxlength="${PASSWORD_MAX_LENGTH}" aria-describedby="passkey-proof-error">
  <p id="passkey-proof-error" class="error" role="alert" hidden></p>
  <button type="submit" id="register-passkey">Register a passkey</button>
</form>
<div id="recovery" hidden>
  <h2>Recovery codes</h2>
  <p class="hint">Each signs in once instead of a second factor. Keep them somewhere safe: they are shown this once.</p>
  <ul id="recovery-codes"></ul>
</div>
<button type="button" id="sign-out">Sign out</button>
</section>
<p id="status" role="status" aria-live="polite"></p>
<script src="${escapeHtml(basePath)}/account/security.js" defer></script>`,
  );
}
