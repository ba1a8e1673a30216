import { ANONYMOUS, AuditActions, type AuditTarget } from '../../domain/audit/audit-entry';
import type { Role } from '../../domain/roles/role';
import type { User } from '../../domain/users/user';
import type { LockoutPolicy } from '../../domain/users/lockout-policy';
import { InvalidCredentialsError } from '../../domain/users/user.errors';
import { Username } from '../../domain/users/username';
import { type AuditFact, type AuditRecorder, lockFacts, userActor, userTarget } from '../audit/audit-recorder';
import type { Clock } from '../ports/clock.port';
import type { LoginAttempts } from '../ports/login-attempts.port';
import type { PasswordHasher } from '../ports/password-hasher.port';
import type { RoleRepository } from '../ports/role-repository.port';
import type { UserRepository } from '../ports/user-repository.port';
import type { MfaChallenges } from '../mfa/mfa-challenges';
import { NO_USER } from '../mfa/own-factor-access';
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
    const allowed = Boolean(claimed) && user !== null && user.isJoined && user.status === 'active';
    // The hash is checked in every case (a dummy one when there is none, or the account is locked),
    // so an unknown, pending or locked user costs the same time as a wrong password.
    const matches = await this.hasher.verify(password, allowed ? user.passwordHash : undefined);
    // The caller is told nothing more than "invalid credentials"; the trail keeps the reason.
    const reason = !claimed ? 'locked' : refusal(user, matches);
    const target = signInTarget(user, this.audit.typedName(key));
    // Every attempt reads factors, a joined user's, a nil id's otherwise: the same work whatever the password and
    // whether the user exists. A user with a factor then gets the second step's problem whatever the password, and
    // locked or deactivated too (a wrong password's ticket, which never completes): so the password is confirmed
    // only with the factor, and a locked or deactivated account answers as a wrong password does.
    const joined = user !== null && user.isJoined;
    const secondStep = this.mfa ? await this.mfa.methodsFor(joined ? user.id : NO_USER) : null;
    // The role is read for every password that goes on: a right one, and any for a user with a factor.
    const goesOn = joined && ((allowed && matches) || secondStep !== null);
    const role: Role | null = goesOn ? await this.roles.findById(user.roleId) : null;
    // A refusal's entry, and the lock's when the call locked the account.
    const withLock = (fact: AuditFact) => (lockedUntil: Date | null) => this.audit.entries(fact, ...lockFacts(ANONYMOUS, target, lockedUntil));
    if (claimed) {
      if (allowed && matches && !secondStep) await this.attempts.succeeded(key);
      else {
        // A failure; or, for a user with a factor, any password: its claim stays counted until a second step
        // succeeds (a known password must not reset the counter between guesses of the code), and the attempt
        // that spends the allowance locks the account whether its password was right or wrong, so neither the
        // answer, the work nor the lock that follows tells them apart. The trail keeps what happened.
        const fact: AuditFact =
          allowed && matches
            ? role
              ? { action: AuditActions.mfaRequired, actor: userActor(user)!, target }
              : { action: AuditActions.signInFailed, outcome: 'failure', code: 'no_role', actor: ANONYMOUS, target }
            : { action: AuditActions.signInFailed, outcome: 'failure', code: reason, actor: ANONYMOUS, target };
        await this.attempts.failed(key, this.clock.now(), this.lockout, withLock(fact), claimed);
      }
    } else {
      // Refused: locked, or the allowance spent by claims whose outcome never came (a process that stopped between
      // a claim and its failure, a database error in between). `failed` without a count reads the counters and turns
      // a spent, unlocked allowance into the lock's wait, so it never refuses for ever.
      await this.attempts.failed(key, this.clock.now(), this.lockout, withLock({ action: AuditActions.signInFailed, outcome: 'failure', code: reason, actor: ANONYMOUS, target }));
    }
    if (!user || !goesOn) throw new InvalidCredentialsError();
    if (!role) {
      // With a factor, or a wrong password, the trail has it already.
      if (matches && !secondStep) await this.audit.record({ action: AuditActions.signInFailed, outcome: 'failure', code: 'no_role', actor: ANONYMOUS, target });
      throw new InvalidCredentialsError();
    }
    if (secondStep && this.mfa) await this.mfa.demand(user.id, key, secondStep, { passwordMatched: allowed && matches, tokenVersion: user.tokenVersion });
    // demand always throws; never a session without the password, whatever changes above.
    if (!allowed || !matches) throw new InvalidCredentialsError();
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

/** The account tried: the user, or (unknown) the pseudonym of the name typed (AuditRecorder.typedName), so failures on one name group together. */
function signInTarget(user: User | null, typed: string): AuditTarget {
  return user ? userTarget(user) : { type: 'user', id: null, snapshot: typed };
}
