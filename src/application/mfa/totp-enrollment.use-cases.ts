import { AuditActions } from '../../domain/audit/audit-entry';
import { InvalidMfaCodeError, MfaAlreadyEnabledError, MfaEnrollmentNotStartedError, RECOVERY_CODE_COUNT, TOTP_ENROLLMENT_TTL_SECONDS, isConfirmed } from '../../domain/mfa/mfa';
import { userMfaEnrolled } from '../../domain/mfa/mfa.events';
import { type AuditRecorder, userActor, userTarget } from '../audit/audit-recorder';
import type { Actor } from '../auth/actor';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { RecoveryCodeHasher } from '../ports/recovery-code-hasher.port';
import type { SecretCipher } from '../ports/secret-cipher.port';
import type { RecoveryCodeGenerator, Totp } from '../ports/totp.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';
import type { UserRepository } from '../ports/user-repository.port';
import { hashRecoveryCodes, totpDigits } from './mfa-codes';
import { ownUser } from './own-factor-access';
import type { FactorProof, OwnFactorProof } from './own-factor-proof';

export interface TotpEnrollment {
  /** Base32: for typing into an app that cannot scan. Shown this once. */
  secret: string;
  otpauthUri: string;
  /** The URI as a PNG data URL. */
  qrCode: string;
}

interface Deps {
  auditRecorder: AuditRecorder;
  userRepository: UserRepository;
  unitOfWork: UnitOfWork;
  mfaStore: MfaStore;
  totp: Totp;
  secretCipher: SecretCipher;
  recoveryCodeGenerator: RecoveryCodeGenerator;
  recoveryCodeHasher: RecoveryCodeHasher;
  idGenerator: IdGenerator;
  clock: Clock;
}

/**
 * Starts an enrollment: a new secret, pending until a code of it confirms it. A pending one is replaced. On the
 * password (or a current code), checked as a sign-in checks it: a stolen access token alone cannot put its holder's
 * authenticator app on the account (ASVS V7.5.1).
 */
export class StartTotpEnrollmentUseCase {
  constructor(private readonly deps: Deps & { ownFactorProof: OwnFactorProof }) {}

  async execute({ actor, proof }: { actor: Actor; proof: FactorProof }): Promise<TotpEnrollment> {
    const { userRepository, mfaStore, totp, secretCipher, unitOfWork, idGenerator, clock, auditRecorder } = this.deps;
    const user = await ownUser(userRepository, actor);
    // An active app costs no attempt of the lockout (GET /v1/me/mfa tells as much).
    if ((await mfaStore.factorsOf(user.id)).some((f) => f.type === 'totp' && isConfirmed(f))) throw new MfaAlreadyEnabledError();
    await this.deps.ownFactorProof.check(user, proof, AuditActions.mfaEnrollmentStarted);
    const secret = totp.newSecret();
    const otpauthUri = totp.uri(secret, user.username ?? user.email);
    const sealedSecret = secretCipher.seal(secret);
    const id = idGenerator.next();
    const createdAt = clock.now();
    await unitOfWork.run(async ({ mfa, audit }) => {
      if (!(await mfa.savePending({ id, userId: user.id, type: 'totp', sealedSecret, createdAt, confirmedAt: null, lastUsedStep: null }))) {
        throw new MfaAlreadyEnabledError();
      }
      await auditRecorder.write(audit, { action: AuditActions.mfaEnrollmentStarted, actor: userActor(user)!, target: userTarget(user), code: 'totp' });
    });
    return { secret, otpauthUri, qrCode: await totp.qrCode(otpauthUri) };
  }
}

/**
 * Confirms the pending enrollment with a current code: the factor is active, and ten recovery codes are shown once.
 * A code is checked as a proof is, against the account's lockout (a token's holder cannot guess a pending app's
 * code without limit), and only within TOTP_ENROLLMENT_TTL_SECONDS of the start.
 */
export class ConfirmTotpEnrollmentUseCase {
  constructor(private readonly deps: Deps & { ownFactorProof: OwnFactorProof }) {}

  async execute({ actor, code }: { actor: Actor; code: string }): Promise<{ recoveryCodes: string[] }> {
    const { userRepository, mfaStore, totp, secretCipher, unitOfWork, clock, auditRecorder, recoveryCodeGenerator, idGenerator } = this.deps;
    const user = await ownUser(userRepository, actor);
    const factors = (await mfaStore.factorsOf(user.id)).filter((f) => f.type === 'totp');
    if (factors.some(isConfirmed)) throw new MfaAlreadyEnabledError();
    const pending = factors[0];
    if (!pending) throw new MfaEnrollmentNotStartedError();
    const now = clock.now();
    if (now.getTime() - pending.createdAt.getTime() > TOTP_ENROLLMENT_TTL_SECONDS * 1000) throw new MfaEnrollmentNotStartedError(true);
    const actorName = userActor(user)!;
    // A pending secret that does not open (the key changed since the start) verifies no code: start again.
    const step = await this.deps.ownFactorProof.counted(user, AuditActions.mfaEnrolled, 'invalid_code', () => new InvalidMfaCodeError(), async () => {
      const digits = totpDigits(code);
      const secret = digits ? secretCipher.open(pending.sealedSecret) : null;
      return secret === null || digits === null ? null : await totp.verify(secret, digits, now, pending.lastUsedStep);
    });
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, () => recoveryCodeGenerator.next());
    const { salt, hashes } = await hashRecoveryCodes(this.deps.recoveryCodeHasher, recoveryCodes);
    await unitOfWork.run(async ({ mfa, outbox, audit }) => {
      if (!(await mfa.confirm(user.id, pending.id, now))) throw new MfaEnrollmentNotStartedError();
      // The confirming code is used: it cannot sign in a second time.
      await mfa.useTimeStep(pending.id, step);
      await mfa.replaceRecoveryCodes(user.id, hashes, now, salt);
      await outbox.append([userMfaEnrolled(idGenerator.next(), user.id, 'totp', now)]);
      await auditRecorder.write(audit, { action: AuditActions.mfaEnrolled, actor: actorName, target: userTarget(user), code: 'totp' });
    });
    return { recoveryCodes };
  }
}
