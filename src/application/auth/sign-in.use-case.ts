import { ANONYMOUS, AuditActions, type AuditTarget } from '../../domain/audit/audit-entry';
import type { Role } from '../../domain/roles/role';
import type { User } from '../../domain/users/user';
import type { LockoutPolicy } from '../../domain/users/lockout-policy';
import { InvalidCredentialsError } from '../../domain/users/user.errors';
import { Username } from '../../domain/users/username';
import { type AuditRecorder, userActor, userTarget } from '../audit/audit-recorder';
import type { Clock } from '../ports/clock.port';
import type { LoginAttempts } from '../ports/login-attempts.port';
import type { PasswordHasher } from '../ports/password-hasher.port';
import type { RoleRepository } from '../ports/role-repository.port';
import type { UserRepository } from '../ports/user-repository.port';
import type { MfaChallenges } from '../mfa/mfa-challenges';
import type { MfaPolicy } from '../mfa/mfa-policy';
import type { SessionIssuer } from './session-issuer';

export interface SignInInput {
  username: string;
  password: string;
}

export interface SignInResult {
  name: string;
  username: string;
  email: string;
  role: { name: string; permissions: string[] };
  accessToken: string;
  /** Added to the contract's five fields: exchanged at `POST /v1/auth/refresh` for new tokens. */
  refreshToken: string;
}

export class SignInUseCase {
  private readonly users: UserRepository;
  private readonly roles: RoleRepository;
  private readonly hasher: PasswordHasher;
  private readonly sessions: SessionIssuer;
  private readonly attempts: LoginAttempts;
  private readonly lockout: LockoutPolicy;
  private readonly clock: Clock;
  private readonly audit: AuditRecorder;
  private readonly mfa: MfaChallenges | undefined;
  private readonly mfaPolicy: MfaPolicy | undefined;

  constructor(deps: {
    /** Absent: no token is ever enrollment-only (MFA_REQUIRED_PERMISSIONS). */
    mfaPolicy?: MfaPolicy;
    /** Absent: no user is asked for a second factor. */
    mfaChallenges?: MfaChallenges;
    auditRecorder: AuditRecorder;
    userRepository: UserRepository;
    roleRepository: RoleRepository;
    passwordHasher: PasswordHasher;
    sessionIssuer: SessionIssuer;
    loginAttempts: LoginAttempts;
    lockoutPolicy: LockoutPolicy;
    clock: Clock;
  }) {
    this.users = deps.userRepository;
    this.roles = deps.roleRepository;
    this.hasher = deps.passwordHasher;
    this.sessions = deps.sessionIssuer;
    this.attempts = deps.loginAttempts;
    this.lockout = deps.lockoutPolicy;
    this.clock = deps.clock;
    this.audit = deps.auditRecorder;
    this.mfa = deps.mfaChallenges;
    this.mfaPolicy = deps.mfaPolicy;
  }

  async execute({ username, password }: SignInInput): Promise<SignInResult> {
    const key = Username.normalize(username);
    const user = await this.users.findByUsername(key);
    // Every username, known or not, claims an evaluation and records its outcome: the same database
    // work whether or not the account exists (no timing difference), and an unknown name locks like a
    // real one. The claim is taken before the evaluation, so parallel guesses cannot exceed the allowance.
    const claimed = await this.attempts.claim(key, this.clock.now(), this.lockout);
    // A deactivated user fails exactly as a wrong password does: same work, same error.
    const allowed = claimed && user !== null && user.isJoined && user.status === 'active';
    // The hash is checked in every case (a dummy one when there is none, or the account is locked),
    // so an unknown, pending or locked user costs the same time as a wrong password.
    const matches = await this.hasher.verify(password, allowed ? user.passwordHash : undefined);
    // The caller is told nothing more than "invalid credentials"; the trail keeps the reason.
    const reason = !claimed ? 'locked' : refusal(user, matches);
    const target = signInTarget(user, key);
    // Only a right password reads the factors: a wrong one costs what it cost before the second factor.
    const mfaMethods = allowed && matches && this.mfa ? await this.mfa.methodsFor(user.id) : null;
    if (claimed) {
      // With a factor the claim stays counted until the second step succeeds: a known password must not
      // reset the counter between guesses of the code (POST /v1/auth/signin/mfa).
      if (allowed && matches) {
        if (!mfaMethods) await this.attempts.succeeded(key);
      }
      else
        await this.attempts.failed(key, this.clock.now(), this.lockout, (lockedUntil) =>
          this.audit.entries(
            { action: AuditActions.signInFailed, outcome: 'failure', code: reason, actor: ANONYMOUS, target },
            ...(lockedUntil
              ? [{ action: AuditActions.lockedOut, code: 'threshold_reached', actor: ANONYMOUS, target, changes: [{ field: 'locked_until', before: null, after: lockedUntil.toISOString() }] }]
              : []),
          ),
        );
    } else {
      await this.audit.record({ action: AuditActions.signInFailed, outcome: 'failure', code: reason, actor: ANONYMOUS, target });
    }
    if (!user || !allowed || !matches) throw new InvalidCredentialsError();

    const role: Role | null = await this.roles.findById(user.roleId);
    if (!role) {
      await this.audit.record({ action: AuditActions.signInFailed, outcome: 'failure', code: 'no_role', actor: ANONYMOUS, target });
      throw new InvalidCredentialsError();
    }
    if (mfaMethods && this.mfa) {
      await this.audit.record({ action: AuditActions.mfaRequired, actor: userActor(user)!, target });
      await this.mfa.demand(user.id, mfaMethods);
    }
    // No confirmed factor here: a role the policy names gets a token that can only enroll one.
    const enrollmentOnly = this.mfaPolicy?.requires(role.permissions) ?? false;
    const { accessToken, refreshToken } = await this.sessions.start(user.id, user.tokenVersion, { enrollmentOnly });
    await this.audit.record({ action: AuditActions.signInSucceeded, actor: userActor(user)!, target, ...(enrollmentOnly ? { code: 'mfa_enrollment_only' } : {}) });
    return signInResult(user, role, { accessToken, refreshToken });
  }
}

/** The answer of a completed sign-in (the password alone, or with its second factor). */
export function signInResult(user: User, role: Role, { accessToken, refreshToken }: { accessToken: string; refreshToken: string }): SignInResult {
  return {
    name: user.name ?? '',
    username: user.username ?? '',
    email: user.email,
    role: { name: role.name, permissions: [...role.permissions] },
    accessToken,
    refreshToken,
  };
}

/** Why a claimed attempt failed, for the trail only; null when it succeeded. */
function refusal(user: User | null, matches: boolean): string | null {
  if (!user) return 'unknown_user';
  if (!user.isJoined) return 'not_joined';
  if (user.status !== 'active') return 'deactivated';
  return matches ? null : 'wrong_password';
}

/** The account tried: the user, or (unknown) the name typed, as its lookup key, so failures on one name group together. */
function signInTarget(user: User | null, key: string): AuditTarget {
  return user ? userTarget(user) : { type: 'user', id: null, snapshot: key.slice(0, 64) };
}
