import { allowed, canHandOut, groupPermissions, homePath, routeOf, screensFor } from '../../../console/src/logic/access';
import { everyPage } from '../../../console/src/logic/every-page';
import { createFeedback } from '../../../console/src/logic/feedback';
import { factorProof, proofError } from '../../../console/src/logic/factor-proof';
import { displayName, localDateTime, tokenClaims } from '../../../console/src/logic/format';
import { asProblem, explain, fieldMessages, isConflict } from '../../../console/src/logic/problems';
import { auditQueryString, changeListQuery, DEFAULT_USERS_QUERY, pageQueryString, parseAuditFilters, parsePageQuery, parseUsersQuery, userPath, usersApiQuery, usersListPath, usersQueryString } from '../../../console/src/logic/url-state';

describe('the console’s users list state in the URL', () => {
  it('reads the defaults from an empty query and writes them as nothing', () => {
    expect(parseUsersQuery('')).toEqual(DEFAULT_USERS_QUERY);
    expect(usersQueryString(DEFAULT_USERS_QUERY)).toBe('');
  });

  it('round-trips every field', () => {
    const query = { page: 3, pageSize: 25, q: 'ada', role: 'admin', status: 'active' as const };
    expect(usersQueryString(query)).toBe('?q=ada&role=admin&status=active&page_size=25&page=3');
    expect(parseUsersQuery(usersQueryString(query))).toEqual(query);
  });

  it('falls back on what a hand-edited URL gets wrong, rather than asking the API for a 400', () => {
    expect(parseUsersQuery('?page=0&page_size=7&status=gone&q=%20%20')).toEqual(DEFAULT_USERS_QUERY);
    expect(parseUsersQuery('?page=-2&page_size=1000').page).toBe(1);
    expect(parseUsersQuery('?page=9999999999').page).toBe(1_000_000_000);
  });

  it('starts again at page 1 when a filter or the page size changes, and keeps the filters when the page does', () => {
    const on3 = { ...DEFAULT_USERS_QUERY, page: 3, q: 'ada' };
    expect(changeListQuery(on3, { role: 'admin' })).toEqual({ ...on3, role: 'admin', page: 1 });
    expect(changeListQuery(on3, { pageSize: 50 }).page).toBe(1);
    expect(changeListQuery(on3, { page: 4 })).toEqual({ ...on3, page: 4 });
  });

  it('asks the API only for the filters that are set (an empty one is a 400 there)', () => {
    expect(usersApiQuery(DEFAULT_USERS_QUERY)).toEqual({ page: 1, page_size: 10 });
    expect(usersApiQuery({ ...DEFAULT_USERS_QUERY, status: 'pending' })).toEqual({ page: 1, page_size: 10, status: 'pending' });
  });

  it('keeps a list’s page and page size as the users list does, and nothing else', () => {
    expect(parsePageQuery('?page=3&page_size=25&q=ada')).toEqual({ page: 3, pageSize: 25 });
    expect(pageQueryString({ page: 3, pageSize: 25 })).toBe('?page_size=25&page=3');
    expect(pageQueryString(parsePageQuery('?page=0&page_size=7'))).toBe('');
    expect(changeListQuery({ page: 3, pageSize: 25 }, { pageSize: 50 })).toEqual({ page: 1, pageSize: 50 });
  });

  it('opens a user’s page with the list’s state, and leads back to that list as it was', () => {
    const list = { page: 2, pageSize: 25, q: 'ada', role: 'admin', status: 'active' as const };
    const path = userPath('a/b', list);
    expect(path).toBe('/console/users/a%2Fb?q=ada&role=admin&status=active&page_size=25&page=2');
    expect(usersListPath(new URL(path, 'http://x').search)).toBe('/console/users?q=ada&role=admin&status=active&page_size=25&page=2');
    expect(usersListPath('')).toBe('/console/users');
    expect(userPath('u1', DEFAULT_USERS_QUERY)).toBe('/console/users/u1');
  });

  it('keeps the audit filters in the URL as the API names them', () => {
    expect(parseAuditFilters('?action=user.deleted&outcome=failure&junk=1&actor=')).toEqual({ action: 'user.deleted', outcome: 'failure' });
    expect(auditQueryString({ outcome: 'success', actor: 'abc' })).toBe('?actor=abc&outcome=success');
    expect(auditQueryString({})).toBe('');
  });
});

describe('what the console says after an action', () => {
  it('clears every message still on the screen when an action starts, and none that has gone', () => {
    const feedback = createFeedback();
    const cleared: string[] = [];
    feedback.hold(() => cleared.push('notice'));
    const release = feedback.hold(() => cleared.push('gone'));
    feedback.hold(() => cleared.push('failure'));
    release();
    feedback.replace();
    expect(cleared).toEqual(['notice', 'failure']);
  });
});

describe('a whole list, page after page', () => {
  const list = (total: number) => Array.from({ length: total }, (_, n) => ({ _id: `r${n}` }));
  const pagesOf = (entries: { _id: string }[], size: number, asked: number[]) => async (page: number) => {
    asked.push(page);
    return { items: entries.slice((page - 1) * size, page * size), pageCount: Math.ceil(entries.length / size) };
  };

  it('reads every page to the last the API counts, one request each', async () => {
    const asked: number[] = [];
    expect(await everyPage(pagesOf(list(250), 100, asked), (r) => r._id)).toEqual(list(250));
    expect(asked).toEqual([1, 2, 3]);
  });

  it('stops at an empty page and at its bound', async () => {
    const empty: number[] = [];
    expect(await everyPage(pagesOf([], 100, empty), (r) => r._id)).toEqual([]);
    expect(empty).toEqual([1]);
    const bounded: number[] = [];
    expect(await everyPage(pagesOf(list(50), 10, bounded), (r) => r._id, 2)).toEqual(list(20));
    expect(bounded).toEqual([1, 2]);
  });

  it('keeps once an entry that the list shifted onto the next page too', async () => {
    const shifted = async (page: number) => ({ items: page === 1 ? list(2) : list(3).slice(1), pageCount: 2 });
    expect(await everyPage(shifted, (r) => r._id)).toEqual(list(3));
  });
});

describe('problems in words', () => {
  const problem = (code: string, status: number, extra: object = {}) => ({ kind: 'problem' as const, problem: { code, status, ...extra } });

  it('puts each field’s first problem next to the field, labelled, and the rest in the message', () => {
    const failure = problem('VALIDATION_FAILED', 400, {
      errors: [
        { field: 'new_password', message: 'must be at least 12 characters' },
        { field: 'new_password', message: 'is too common' },
        { field: 'extra', message: 'is not a field of this request' },
      ],
    });
    expect(explain(failure, ['new_password'])).toEqual({
      message: 'extra is not a field of this request.',
      fields: { new_password: 'New password must be at least 12 characters.' },
      retry: false,
      signIn: false,
    });
    expect(explain(failure, ['new_password', 'extra']).message).toBe('');
  });

  it('shows a code that is about one field at that field when the form has it, otherwise as the message', () => {
    expect(explain(problem('EMAIL_TAKEN', 409), ['email'])).toMatchObject({ message: '', fields: { email: expect.stringContaining('already has this e-mail') } });
    expect(explain(problem('EMAIL_TAKEN', 409)).message).toContain('already has this e-mail');
  });

  it('offers a retry for 503, 429 and a lost network, saying how long to wait when the answer says', () => {
    expect(explain(problem('SERVICE_UNAVAILABLE', 503))).toMatchObject({ retry: true, message: 'The service is unavailable for a moment. Try again shortly.' });
    expect(explain({ ...problem('TOO_MANY_REQUESTS', 429), retryAfterSeconds: 1 }).message).toBe('Too many requests for now. Try again in 1 second.');
    expect(explain({ kind: 'network' })).toMatchObject({ retry: true, message: expect.stringContaining('cannot be reached') });
  });

  it('knows a refusal of a stale version (the record must be read again) from another 409, such as a role in use', () => {
    expect(['USER_CHANGED_CONCURRENTLY', 'ROLE_CHANGED_CONCURRENTLY', 'SERVICE_ACCOUNT_CHANGED_CONCURRENTLY'].map((code) => isConflict(problem(code, 409)))).toEqual([true, true, true]);
    expect(isConflict(problem('ROLE_IN_USE', 409))).toBe(false);
    expect(isConflict({ kind: 'network' })).toBe(false);
  });

  it('sends a lost session back to sign-in, says a 403 in words, and falls back on the detail for a code it does not know', () => {
    expect(explain(problem('UNAUTHENTICATED', 401)).signIn).toBe(true);
    expect(explain(problem('PERMISSION_DENIED', 403)).message).toBe('Your role does not allow this.');
    expect(explain(problem('SOMETHING_NEW', 409, { detail: 'A new rule says no' })).message).toBe('A new rule says no.');
  });

  it('sends what proves the owner before a factor is added: six digits as a code only with an app, anything else as the password; a refusal at its field', () => {
    expect(factorProof(' 123456 ', true)).toEqual({ code: '123456' });
    expect(factorProof('123 456', true)).toEqual({ code: '123 456' });
    expect(factorProof('123456', false)).toEqual({ password: '123456' });
    expect(factorProof(' a long enough passphrase', true)).toEqual({ password: ' a long enough passphrase' });
    expect(proofError(null)).toBeUndefined();
    expect(proofError(problem('WRONG_CURRENT_PASSWORD', 400))).toBe('The password is not right, or too many tries have locked the account for a while.');
    expect(proofError(problem('INVALID_MFA_CODE', 400))).toContain('That code is not right.');
    expect(proofError(problem('VALIDATION_FAILED', 400, { errors: [{ field: 'body.password', message: 'must NOT have fewer than 1 characters' }] }))).toBe('Password must NOT have fewer than 1 characters.');
    expect(proofError(problem('MFA_ALREADY_ENABLED', 409))).toBeUndefined();
  });

  it('reads any answer as a problem, a body that is none included', () => {
    expect(asProblem(404, { code: 'NOT_FOUND', status: 404, detail: 'x' })).toMatchObject({ code: 'NOT_FOUND' });
    expect(asProblem(503, '<html>')).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(fieldMessages(undefined)).toEqual({});
  });
});

describe('what a viewer sees', () => {
  it('shows a member only their account, and an admin every screen', () => {
    expect(screensFor([]).map((s) => s.screen)).toEqual(['account']);
    expect(homePath([])).toBe('/console/account');
    const admin = ['users:read', 'users:invite', 'roles:read', 'service-accounts:read', 'audit:read'];
    expect(screensFor(admin).map((s) => s.screen)).toEqual(['users', 'invitations', 'roles', 'service-accounts', 'audit', 'account']);
    expect(homePath(admin)).toBe('/console/users');
    expect(allowed(['users:read'], 'invitations')).toBe(false);
    // The API lets users:invite alone invite: the screen opens with it, and is such a role's home.
    expect(allowed(['users:invite'], 'invitations')).toBe(true);
    expect(homePath(['users:invite'])).toBe('/console/invitations');
  });

  it('knows the screen and record of a path, and none for an unknown one', () => {
    expect(routeOf('/console/users')).toEqual({ screen: 'users', id: null });
    expect(routeOf('/console/users/a%2Fb')).toEqual({ screen: 'users', id: 'a/b' });
    expect(routeOf('/console/service-accounts/new')).toEqual({ screen: 'service-accounts', id: 'new' });
    for (const unknown of ['/console', '/console/nothing', '/console/users.json', '/console/users/abc/more', '/console/account/abc', '/console/audit/x', '/console/users/%E0', '/other/users']) {
      expect(routeOf(unknown)).toBeNull();
    }
  });

  it('groups the permission picker by the names’ groups, sorted', () => {
    expect(groupPermissions(['users:read', 'audit:read', 'users:invite', 'odd'])).toEqual([
      ['audit', ['audit:read']],
      ['other', ['odd']],
      ['users', ['users:invite', 'users:read']],
    ]);
  });

  it('offers only roles whose every permission the viewer holds (the hand-out rule)', () => {
    expect(canHandOut(['users:read'], { permissions: [] })).toBe(true);
    expect(canHandOut(['users:read'], { permissions: ['users:read', 'users:delete'] })).toBe(false);
  });
});

describe('formatting', () => {
  it('writes dates in the viewer’s zone and language', () => {
    expect(localDateTime('2026-01-31T23:30:00.000Z', 'en-GB', 'Europe/Paris')).toBe('1 Feb 2026, 00:30');
    expect(localDateTime(undefined)).toBe('');
  });

  it('reads the enrollment-only claim of a token, and nothing of a malformed one', () => {
    const payload = Buffer.from(JSON.stringify({ sub: 'u', mfa_enrollment: true })).toString('base64url');
    expect(tokenClaims(`h.${payload}.s`).mfa_enrollment).toBe(true);
    expect(tokenClaims('garbage')).toEqual({});
  });

  it('names a user by name, username or e-mail, whichever is known', () => {
    expect(displayName({ email: 'a@example.com' })).toBe('a@example.com');
    expect(displayName({ email: 'a@example.com', username: 'ada' })).toBe('ada');
  });
});
