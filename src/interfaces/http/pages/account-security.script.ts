/**
 * The account-security page's script, its own file as the Content-Security-Policy wants (scripts from this origin,
 * none inline). Tokens stay in this closure. WebAuthn's binary fields travel as base64url (the JSON the API reads
 * and writes), converted here both ways.
 */
export const ACCOUNT_SECURITY_SCRIPT = `'use strict';
(function () {
  var $ = function (id) { return document.getElementById(id); };
  // PUBLIC_URL's path ('' at the root): the API is called under it, as a proxy that strips it serves the page.
  var BASE = $('signin').getAttribute('data-base') || '';
  var session = null;
  var ticket = null;

  function status(kind, outcome, text) {
    var line = $('status');
    line.className = kind;
    line.setAttribute('data-outcome', outcome);
    line.textContent = text;
  }

  function toBytes(text) {
    var b64 = text.replace(/-/g, '+').replace(/_/g, '/');
    var bin = atob(b64 + '==='.slice((b64.length + 3) % 4));
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes.buffer;
  }

  function toText(buffer) {
    var bytes = new Uint8Array(buffer);
    var bin = '';
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }

  function descriptors(list) {
    return (list || []).map(function (c) { return Object.assign({}, c, { id: toBytes(c.id) }); });
  }

  function common(credential) {
    return { id: credential.id, rawId: toText(credential.rawId), type: credential.type, clientExtensionResults: credential.getClientExtensionResults(), authenticatorAttachment: credential.authenticatorAttachment || undefined };
  }

  async function call(method, path, body, token) {
    var headers = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers.authorization = 'Bearer ' + token;
    var response = await fetch(BASE + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) });
    var json = await response.json().catch(function () { return {}; });
    return { status: response.status, ok: response.ok, body: json };
  }

  /**
   * A call with the session's access token. A 401 (the token expired, or the session ended elsewhere) renews once with
   * the refresh token this page holds and tries again; when that is refused too, the session is over: the page goes
   * back to sign-in and says so, and the answer is null.
   */
  async function authed(method, path, body) {
    var answer = await call(method, path, body, session.accessToken);
    if (answer.status !== 401) return answer;
    var renewed = await call('POST', '/v1/auth/refresh', { refreshToken: session.refreshToken });
    // Only a refused refresh token means the session is over; a 503 or a 429 is the service's moment, and the page
    // keeps its session (and says so) rather than throw away a refresh token that still works.
    if (renewed.status === 401) {
      ended('session-ended', 'Your session has ended. Sign in again.');
      return null;
    }
    if (!renewed.ok) {
      status('error', renewed.body.code || 'error', 'The service could not renew your session just now; try again shortly.');
      return null;
    }
    session.accessToken = renewed.body.accessToken;
    session.refreshToken = renewed.body.refreshToken;
    answer = await call(method, path, body, session.accessToken);
    if (answer.status !== 401) return answer;
    ended('session-ended', 'Your session has ended. Sign in again.');
    return null;
  }

  function ended(outcome, text) {
    session = null;
    $('account').hidden = true;
    $('recovery').hidden = true;
    $('signin').hidden = false;
    $('password-step').hidden = false;
    status(outcome === 'signed-out' ? '' : 'error', outcome, text);
  }

  async function signedIn(result) {
    session = result;
    ticket = null;
    $('signin').hidden = true;
    $('second-step').hidden = true;
    $('account').hidden = false;
    $('who').textContent = result.username;
    var left = result.recovery_codes_remaining;
    if (await listPasskeys()) status('ok', 'signed-in', left === undefined ? 'Signed in.' : 'Signed in with a recovery code: ' + left + ' left.');
  }

  async function listPasskeys() {
    var answer = await authed('GET', '/v1/me/mfa');
    if (!answer) return false;
    if (!answer.ok) {
      status('error', answer.body.code || 'error', answer.body.detail || 'Could not read your factors.');
      return false;
    }
    var list = $('passkeys');
    list.textContent = '';
    var passkeys = answer.body.factors.filter(function (f) { return f.type === 'webauthn'; });
    passkeys.forEach(function (p) {
      var item = document.createElement('li');
      item.setAttribute('data-id', p.id);
      item.textContent = p.name + (p.last_used_date ? ' (last used ' + p.last_used_date + ')' : ' (not used yet)');
      list.appendChild(item);
    });
    $('no-passkeys').hidden = passkeys.length > 0;
    return true;
  }

  async function secondStep(body) {
    var answer = await call('POST', '/v1/auth/signin/mfa', Object.assign({ mfa_token: ticket.token }, body));
    if (answer.ok) return signedIn(answer.body);
    if (answer.status === 401) {
      ticket = null;
      $('second-step').hidden = true;
      $('password-step').hidden = false;
    }
    status('error', answer.body.code || 'error', answer.body.detail || 'The second factor was refused.');
  }

  $('password-step').addEventListener('submit', async function (event) {
    event.preventDefault();
    status('', 'working', 'Signing in…');
    var answer = await call('POST', '/v1/auth/signin', { username: $('username').value, password: $('password').value });
    $('password').value = '';
    if (answer.ok) return signedIn(answer.body);
    if (answer.body.code !== 'MFA_REQUIRED') return status('error', answer.body.code || 'error', answer.body.detail || 'Sign-in failed.');
    ticket = { token: answer.body.mfa_token, options: answer.body.webauthn_options || null };
    $('password-step').hidden = true;
    $('second-step').hidden = false;
    $('use-passkey').hidden = answer.body.methods.indexOf('webauthn') < 0;
    $('code-step').hidden = answer.body.methods.indexOf('totp') < 0;
    $('recovery-step').hidden = answer.body.methods.indexOf('recovery_code') < 0;
    status('', 'mfa-required', 'Password accepted: now the second factor.');
  });

  $('use-passkey').addEventListener('click', async function () {
    try {
      var options = ticket.options;
      ticket.options = null;
      if (!options) {
        var fresh = await call('POST', '/v1/auth/signin/mfa/webauthn-options', { mfa_token: ticket.token });
        if (!fresh.ok) return status('error', fresh.body.code || 'error', fresh.body.detail || 'No passkey options.');
        options = fresh.body;
      }
      status('', 'working', 'Waiting for your passkey…');
      var credential = await navigator.credentials.get({ publicKey: Object.assign({}, options, { challenge: toBytes(options.challenge), allowCredentials: descriptors(options.allowCredentials) }) });
      var r = credential.response;
      await secondStep({ webauthn: Object.assign(common(credential), { response: { clientDataJSON: toText(r.clientDataJSON), authenticatorData: toText(r.authenticatorData), signature: toText(r.signature), userHandle: r.userHandle ? toText(r.userHandle) : undefined } }) });
    } catch (error) {
      status('error', 'webauthn-failed', 'The passkey did not answer: ' + error.message);
    }
  });

  $('code-step').addEventListener('submit', async function (event) {
    event.preventDefault();
    await secondStep({ code: $('code').value });
  });

  $('recovery-step').addEventListener('submit', async function (event) {
    event.preventDefault();
    var code = $('recovery-code').value.trim();
    $('recovery-code').value = '';
    await secondStep({ recovery_code: code });
  });

  /** A refused proof said at its field (and in the status line, for its outcome); none clears it. */
  function proofError(code, text) {
    var note = $('passkey-proof-error');
    note.hidden = !text;
    note.textContent = text || '';
    $('passkey-proof').setAttribute('aria-invalid', text ? 'true' : 'false');
    if (text) status('error', code, text);
  }

  var PROOF_REFUSED = {
    WRONG_CURRENT_PASSWORD: 'That is not your password (too many tries lock the account for a while).',
    INVALID_MFA_CODE: 'That code is not right: use the current code of your authenticator app (each works once), or your password if you have no app.'
  };

  $('add-passkey').addEventListener('submit', async function (event) {
    event.preventDefault();
    // The password, or six digits (or 123 456, as the apps show it): a current code of the authenticator app (no password is either).
    var entered = $('passkey-proof').value;
    if (!entered) return proofError('proof-missing', 'Enter your password (or your authenticator app’s current code) to register a passkey.');
    proofError(null, null);
    var proof = /^[0-9]{3} ?[0-9]{3}$/.test(entered.trim()) ? { code: entered.trim() } : { password: entered };
    try {
      var given = await authed('POST', '/v1/me/mfa/webauthn/registration-options', proof);
      if (!given) return;
      $('passkey-proof').value = '';
      if (PROOF_REFUSED[given.body.code]) return proofError(given.body.code, PROOF_REFUSED[given.body.code]);
      if (!given.ok) return status('error', given.body.code || 'error', given.body.detail || 'No registration options.');
      var o = given.body;
      status('', 'working', 'Creating the passkey…');
      var credential = await navigator.credentials.create({ publicKey: Object.assign({}, o, { challenge: toBytes(o.challenge), user: Object.assign({}, o.user, { id: toBytes(o.user.id) }), excludeCredentials: descriptors(o.excludeCredentials) }) });
      var r = credential.response;
      var name = $('passkey-name').value.trim();
      var answer = await authed('POST', '/v1/me/mfa/webauthn', {
        name: name || undefined,
        response: Object.assign(common(credential), { response: { clientDataJSON: toText(r.clientDataJSON), attestationObject: toText(r.attestationObject), transports: r.getTransports ? r.getTransports() : [] } })
      });
      if (!answer) return;
      if (!answer.ok) return status('error', answer.body.code || 'error', answer.body.detail || 'The passkey was refused.');
      if (answer.body.recovery_codes) {
        var codes = $('recovery-codes');
        codes.textContent = '';
        answer.body.recovery_codes.forEach(function (c) { var li = document.createElement('li'); li.textContent = c; codes.appendChild(li); });
        $('recovery').hidden = false;
      }
      $('passkey-name').value = '';
      if (await listPasskeys()) status('ok', 'passkey-registered', 'Passkey “' + answer.body.name + '” registered.');
    } catch (error) {
      status('error', 'webauthn-failed', 'The passkey was not created: ' + error.message);
    }
  });

  // Signed out only when the API says so: every session of the user ends on the server, or had ended already. A
  // failure (the network gone, the service away) keeps the page signed in and says so, rather than claim a sign-out.
  $('sign-out').addEventListener('click', async function () {
    if (!session) return;
    try {
      var answer = await authed('POST', '/v1/auth/signout');
      if (!answer) return;
      if (!answer.ok) return status('error', answer.body.code || 'error', 'Not signed out: ' + (answer.body.detail || 'the service refused.'));
      ended('signed-out', 'Signed out.');
    } catch (error) {
      status('error', 'sign-out-failed', 'Not signed out: the service could not be reached. Try again.');
    }
  });
})();
`;
