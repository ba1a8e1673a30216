/**
 * The accept page's script, served as its own file: the Content-Security-Policy allows scripts from
 * this origin only, none inline. It posts the form to the API as JSON and shows the answer: each
 * problem once, next to its field (aria-invalid, aria-describedby), the first invalid field focused;
 * the status line says only what no field says. Once joined, the form goes and the next step shows.
 */
export const ACCEPT_INVITATION_SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('accept');
  if (!form) return;
  var result = document.getElementById('result');
  var button = document.getElementById('submit');
  var FIELDS = ['name', 'username', 'password'];
  // Problems the API reports by code that belong to a field of the form.
  var FIELD_OF_CODE = { USERNAME_TAKEN: { field: 'username', message: 'is already taken: choose another one' } };

  function describe(input, errorId, on) {
    var ids = (input.getAttribute('aria-describedby') || '').split(' ').filter(function (id) { return id && id !== errorId; });
    if (on) ids.unshift(errorId);
    if (ids.length > 0) input.setAttribute('aria-describedby', ids.join(' '));
    else input.removeAttribute('aria-describedby');
  }

  function setFieldError(name, message) {
    var input = form.elements[name];
    var error = document.getElementById(name + '-error');
    var label = form.querySelector('label[for="' + name + '"]');
    error.textContent = message ? (label ? label.textContent + ' ' : '') + message : '';
    error.hidden = !message;
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
    describe(input, error.id, !!message);
  }

  function setResult(kind, outcome, text) {
    result.className = kind;
    if (outcome) result.setAttribute('data-outcome', outcome);
    else result.removeAttribute('data-outcome');
    result.textContent = text;
  }

  function showProblem(body) {
    var problems = (body.errors || []).slice();
    if (FIELD_OF_CODE[body.code]) problems.push(FIELD_OF_CODE[body.code]);
    var shown = {};
    var elsewhere = [];
    problems.forEach(function (p) {
      if (FIELDS.indexOf(p.field) < 0) elsewhere.push(p.field + ' ' + p.message);
      else if (!shown[p.field]) {
        shown[p.field] = true;
        setFieldError(p.field, p.message);
      }
    });
    var first = FIELDS.filter(function (name) { return shown[name]; })[0];
    var summary = first ? elsewhere.join('; ') : body.detail || 'Something went wrong.';
    setResult('error', body.code || 'error', summary);
    if (first) form.elements[first].focus();
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    button.disabled = true;
    FIELDS.forEach(function (name) { setFieldError(name, ''); });
    setResult('', '', 'Joining…');
    fetch(form.getAttribute('data-api'), {
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
          document.getElementById('invitation').hidden = true;
          setResult('ok', 'joined', 'You have joined as ' + body.username + '.');
          document.getElementById('next').hidden = false;
          return;
        }
        button.disabled = false;
        showProblem(body);
      });
    }).catch(function () {
      button.disabled = false;
      setResult('error', 'unreachable', 'The service could not be reached. Try again.');
    });
  });
})();
`;
