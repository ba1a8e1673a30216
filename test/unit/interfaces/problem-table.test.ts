import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { InvitationExpiredError, InvitationNotFoundError, InvitationUsedError, UserAlreadyJoinedError } from '../../../src/domain/invitations/invitation.errors';
import { PermissionDeniedError } from '../../../src/domain/permissions/permission-denied.error';
import { PasswordResetExpiredError, PasswordResetNotFoundError, PasswordResetUsedError } from '../../../src/domain/users/password-reset';
import { RoleNotFoundError } from '../../../src/domain/roles/role-not-found.error';
import {
  BuiltInRoleError,
  NoSuchRoleError,
  PermissionNotFoundError,
  RoleChangedConcurrentlyError,
  RoleInUseError,
  RoleNameTakenError,
} from '../../../src/domain/roles/role.errors';
import { DomainError, ValidationError } from '../../../src/domain/shared/domain-error';
import {
  LastCredentialError,
  NoSuchServiceAccountError,
  NoSuchServiceAccountSecretError,
  ServiceAccountChangedConcurrentlyError,
  ServiceAccountNameTakenError,
  TooManySecretsError,
} from '../../../src/domain/service-accounts/service-account.errors';
import {
  EmailAlreadyTakenError,
  InvalidCredentialsError,
  LastActiveAdminError,
  OwnAccountError,
  UserChangedConcurrentlyError,
  UserDeactivatedError,
  UserNotFoundError,
  UsernameAlreadyTakenError,
} from '../../../src/domain/users/user.errors';
import { InvalidRefreshTokenError, NotAUserError, WrongCurrentPasswordError } from '../../../src/application/auth/session.errors';
import { InvalidScopeError, InvalidTargetError } from '../../../src/application/service-accounts/service-token.errors';
import { MfaRequiredError } from '../../../src/application/mfa/mfa.errors';
import { SearchTooBroadError } from '../../../src/application/users/list-users.errors';
import { InvalidMfaCodeError, InvalidMfaTokenError, MfaAlreadyEnabledError, MfaEnrollmentNotStartedError, MfaNotEnabledError, SecondFactorClosedError } from '../../../src/domain/mfa/mfa';
import { InvalidWebAuthnResponseError, PasskeyLimitError, PasskeyNotFoundError } from '../../../src/domain/mfa/passkey';
import { FASTIFY_CODES, toProblem } from '../../../src/interfaces/http/error-handler';
import { TurnWaitTimedOutError } from '../../../src/infrastructure/persistence/typeorm/connection-turns';
import { HttpProblemError, invalidToken, PROBLEMS, problem, unauthenticated } from '../../../src/interfaces/http/problem';

/** One instance of every DomainError subclass in src/domain and src/application. */
const DOMAIN_ERRORS: DomainError[] = [
  new ValidationError([{ field: 'email', message: 'is not an e-mail address' }]),
  new PermissionDeniedError(['users:invite']),
  new EmailAlreadyTakenError(),
  new UsernameAlreadyTakenError(),
  new InvalidCredentialsError(),
  new UserNotFoundError(),
  new RoleNotFoundError('auditor'),
  new InvitationNotFoundError(),
  new InvitationExpiredError(),
  new InvitationUsedError(),
  // Password reset (#10).
  new PasswordResetNotFoundError(),
  new PasswordResetExpiredError(),
  new PasswordResetUsedError(),
  new UserAlreadyJoinedError(),
  new UserDeactivatedError(),
  new UserChangedConcurrentlyError(),
  new LastActiveAdminError(),
  new OwnAccountError('delete'),
  new InvalidRefreshTokenError(),
  new WrongCurrentPasswordError(),
  // Role administration (#11).
  new NoSuchRoleError(),
  new PermissionNotFoundError(['users:fly']),
  new RoleNameTakenError('auditor'),
  new RoleInUseError(2),
  new BuiltInRoleError('deleted'),
  new RoleChangedConcurrentlyError(),
  new NoSuchServiceAccountError(),
  new NoSuchServiceAccountSecretError(),
  new ServiceAccountNameTakenError('reports'),
  new ServiceAccountChangedConcurrentlyError(),
  new LastCredentialError(),
  new TooManySecretsError(5),
  new InvalidScopeError(),
  new InvalidTargetError(),
  new NotAUserError(),
  new InvalidMfaCodeError(),
  new InvalidMfaTokenError(),
  new MfaAlreadyEnabledError(),
  new MfaEnrollmentNotStartedError(),
  new MfaNotEnabledError(),
  new SecondFactorClosedError(),
  new PasskeyNotFoundError(),
  new PasskeyLimitError(),
  new InvalidWebAuthnResponseError(),
  new MfaRequiredError('ticket', ['totp'], 300),
  new SearchTooBroadError(),
];

/** The `code = '...'` of every error class in the given source folders. */
function declaredCodes(...folders: string[]): string[] {
  const codes: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(file);
      else if (file.endsWith('.ts')) {
        for (const match of readFileSync(file, 'utf8').matchAll(/\bcode\s*=\s*'([A-Z_]+)'/g)) codes.push(match[1]!);
      }
    }
  };
  for (const folder of folders) visit(path.join(__dirname, '../../../src', folder));
  return codes;
}


const kebab = (code: string) => code.toLowerCase().replace(/_/g, '-');

/** An error as Fastify raises it: a message, a code and a status. */
const fastifyError = (code: string | undefined, statusCode: number, message = 'Fastify says no') =>
  Object.assign(new Error(message), { code, statusCode });

describe('the problem table', () => {
  it('is the README’s Errors table: every code a client can get is listed under its status', () => {
    const readme = readFileSync(path.join(__dirname, '../../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Errors'), readme.indexOf('\n## ', readme.indexOf('### Errors')));
    const rows = section.split('\n').filter((line) => /^\| \d{3}/.test(line));
    const listed = new Map<string, number[]>();
    for (const row of rows) {
      const statuses = [...row.split('|')[1]!.matchAll(/\d{3}/g)].map((m) => Number(m[0]));
      for (const match of row.split('|').slice(2).join('|').matchAll(/`([A-Z][A-Z_]+)`/g)) listed.set(match[1]!, statuses);
    }
    const missing = Object.entries(PROBLEMS)
      .filter(([code]) => code !== 'INTERNAL')
      .filter(([code, entry]) => !listed.get(code)?.includes(entry.status))
      .map(([code, entry]) => `${entry.status} ${code}`);
    expect(missing).toEqual([]);
  });

  it('has an instance here for every DomainError code declared in src/domain and src/application', () => {
    const declared = declaredCodes('domain', 'application');
    expect(declared.length).toBeGreaterThan(0);
    expect([...new Set(declared)].sort()).toEqual(DOMAIN_ERRORS.map((e) => e.code).sort());
  });

  it.each(DOMAIN_ERRORS.map((error) => [error.code, error] as const))('maps %s to its own 4xx problem', (code, error) => {
    expect(PROBLEMS[code]).toBeDefined();
    const { problem: body, headers } = toProblem(error);
    expect(body).toMatchObject({
      type: `urn:problem:access-control:${kebab(code)}`,
      title: PROBLEMS[code]!.title,
      status: PROBLEMS[code]!.status,
      code,
      detail: error.message,
    });
    expect(body.status).toBeGreaterThanOrEqual(400);
    expect(body.status).toBeLessThan(500);
    // A missing permission is challenged as RFC 6750 §3.1 has it; no other domain error carries a header.
    expect(headers).toEqual(
      error instanceof PermissionDeniedError ? { 'www-authenticate': `Bearer realm="access-control", error="insufficient_scope", scope="${error.missing.join(' ')}"` } : {},
    );
  });

  it('answers the business rules with the statuses clients rely on', () => {
    const statusOf = (error: DomainError) => toProblem(error).problem.status;
    expect(statusOf(new ValidationError([]))).toBe(400);
    expect(statusOf(new InvalidCredentialsError())).toBe(401);
    expect(statusOf(new PermissionDeniedError(['users:read']))).toBe(403);
    expect(statusOf(new UserNotFoundError())).toBe(404);
    expect(statusOf(new EmailAlreadyTakenError())).toBe(409);
    expect(statusOf(new InvitationExpiredError())).toBe(410);
  });

  it('lists the fields of a ValidationError', () => {
    const error = new ValidationError([{ field: 'email', message: 'is not an e-mail address' }]);
    expect(toProblem(error).problem.errors).toEqual([{ field: 'email', message: 'is not an e-mail address' }]);
  });

  it('gives every code a urn:problem:access-control: type in kebab case', () => {
    for (const [code, { status, title }] of Object.entries(PROBLEMS)) {
      expect(problem(code, 'detail')).toEqual({ type: `urn:problem:access-control:${kebab(code)}`, title, status, detail: 'detail', code });
      expect(kebab(code)).toMatch(/^[a-z]+(-[a-z]+)*$/);
    }
    expect(problem('USER_NOT_FOUND', 'x').type).toBe('urn:problem:access-control:user-not-found');
  });

  it('uses 5xx only for INTERNAL and SERVICE_UNAVAILABLE', () => {
    const serverSide = Object.entries(PROBLEMS).filter(([, { status }]) => status >= 500).map(([code]) => code);
    expect(serverSide.sort()).toEqual(['INTERNAL', 'SERVICE_UNAVAILABLE']);
    for (const { status } of Object.values(PROBLEMS)) expect(status).toBeGreaterThanOrEqual(400);
  });

  it('answers an HttpProblemError with its code and headers', () => {
    const { problem: body, headers } = toProblem(unauthenticated());
    expect(body).toMatchObject({ code: 'UNAUTHENTICATED', status: 401, detail: 'A valid bearer token is required' });
    // RFC 6750 §3.1: no error code to a request that carried no token; `invalid_token` to one whose token was refused.
    expect(headers['www-authenticate']).toBe('Bearer realm="access-control"');
    const refused = toProblem(invalidToken());
    expect(refused.problem).toEqual(body);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="access-control", error="invalid_token"');
    expect(toProblem(new HttpProblemError('METHOD_NOT_ALLOWED', 'Use GET')).problem).toMatchObject({ status: 405, detail: 'Use GET' });
  });
});

describe('toProblem for errors from Fastify and the database', () => {
  it.each(Object.entries(FASTIFY_CODES))('maps %s to %s', (fastifyCode, code) => {
    const { problem: body } = toProblem(fastifyError(fastifyCode, 400, 'Body is not valid JSON'));
    expect(body).toMatchObject({ code, status: PROBLEMS[code]!.status, type: `urn:problem:access-control:${kebab(code)}` });
    // The router's message for an over-long parameter holds the whole path: the answer says it in its own words.
    const detail = fastifyCode === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is longer than any id (at most 200 characters)' : 'Body is not valid JSON';
    expect(body.detail).toBe(detail);
    // A VALIDATION_FAILED always carries errors[] (README, "Errors"), naming what it can.
    if (code === 'VALIDATION_FAILED') expect(body.errors).toEqual([{ field: expect.any(String), message: detail }]);
    else expect(body.errors).toBeUndefined();
  });

  it('does not echo a very long Fastify message', () => {
    const { problem: body } = toProblem(fastifyError('FST_ERR_BAD_URL', 400, 'x'.repeat(300)));
    expect(body.detail).toBe('The request could not be processed');
  });

  it('maps a schema validation failure to VALIDATION_FAILED with its fields', () => {
    const error = Object.assign(new Error('body/email must match format "email"'), {
      validation: [{ instancePath: '/email', message: 'must match format "email"' }, { instancePath: '', params: { missingProperty: 'role' } }],
      validationContext: 'body',
    });
    expect(toProblem(error).problem).toMatchObject({
      code: 'VALIDATION_FAILED',
      status: 400,
      errors: [{ field: 'email', message: 'must match format "email"' }, { field: 'role', message: 'is invalid' }],
    });
  });

  it.each([418, 422, 402, 409, 410, 451])('answers a Fastify-like %i it has no generic code for with a code and status that agree', (status) => {
    const { problem: body } = toProblem(fastifyError('FST_ERR_SOMETHING_NEW', status, 'Nope'));
    expect(body.status).toBe(PROBLEMS[body.code]!.status);
    // Never a business code guessed from the status (EMAIL_TAKEN for 409, INVITATION_EXPIRED for 410).
    expect(body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', detail: 'Nope' });
  });

  it.each([[401, 'UNAUTHENTICATED'], [403, 'PERMISSION_DENIED'], [405, 'METHOD_NOT_ALLOWED'], [413, 'PAYLOAD_TOO_LARGE'], [415, 'UNSUPPORTED_MEDIA_TYPE'], [429, 'TOO_MANY_REQUESTS']])(
    'answers a Fastify-like %i with the generic problem of that status, %s',
    (status, code) => {
      expect(toProblem(fastifyError(undefined, status)).problem).toMatchObject({ status, code });
    },
  );

  it('names a body field the route does not take', () => {
    const error = Object.assign(new Error('body must NOT have additional properties'), {
      validation: [{ keyword: 'additionalProperties', instancePath: '', params: { additionalProperty: 'admin' }, message: 'must NOT have additional properties' }],
      validationContext: 'body',
    });
    expect(toProblem(error).problem).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', errors: [{ field: 'admin', message: 'is not a field of this request' }] });
  });

  it('maps a Fastify-like error with statusCode 404 to a 404 problem', () => {
    const { problem: body } = toProblem(fastifyError('FST_ERR_NOT_FOUND', 404, 'Route GET:/nope not found'));
    expect(body).toMatchObject({ status: 404, code: 'NOT_FOUND', type: 'urn:problem:access-control:not-found' });
  });

  it.each([
    ['a driver error with code ECONNREFUSED', Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:3306'), { code: 'ECONNREFUSED' })],
    [
      'a query error whose driverError.code is ER_LOCK_DEADLOCK',
      Object.assign(new Error('Deadlock found when trying to get lock; secret table users_v2'), { driverError: { code: 'ER_LOCK_DEADLOCK' } }),
    ],
    ['a role change that waited for its turn as long as a statement may', new TurnWaitTimedOutError('roles', 10_000)],
  ])('answers %s with 503 and retry-after', (_, error) => {
    const { problem: body, headers } = toProblem(error);
    expect(body).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(headers['retry-after']).toMatch(/^\d+$/);
    expect(body.detail).not.toContain(error.message);
  });

  it('answers an unknown error with 500 INTERNAL, without echoing its message', () => {
    const { problem: body, headers } = toProblem(new Error('SELECT password_hash FROM users failed at db-7.internal'));
    expect(body).toMatchObject({ status: 500, code: 'INTERNAL', type: 'urn:problem:access-control:internal' });
    expect(body.detail).not.toContain('password_hash');
    expect(body.detail).not.toContain('db-7');
    expect(headers).toEqual({});
  });

  it('answers with 500 for things that are not errors at all', () => {
    for (const thrown of [undefined, null, 'a string', 42, {}]) {
      expect(toProblem(thrown).problem).toMatchObject({ status: 500, code: 'INTERNAL' });
    }
  });

  it('answers a DomainError with an unlisted code with 500, without echoing its message', () => {
    class UnlistedError extends DomainError {
      readonly code = 'NOT_IN_THE_TABLE';
    }
    const { problem: body } = toProblem(new UnlistedError('internal detail'));
    expect(body).toMatchObject({ status: 500, code: 'INTERNAL' });
    expect(body.detail).not.toContain('internal detail');
  });
});
