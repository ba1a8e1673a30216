import type { RecoveryCodeHasher } from '../application/ports/recovery-code-hasher.port';
import { Argon2RecoveryCodeHasher } from './crypto/argon2-recovery-code-hasher';
import { asClass, asFunction } from 'awilix';
import { MfaChallenges } from '../application/mfa/mfa-challenges';
import { MfaPolicy } from '../application/mfa/mfa-policy';
import type { RoleRepository } from '../application/ports/role-repository.port';
import { CompleteMfaSignInUseCase } from '../application/mfa/complete-mfa-sign-in.use-case';
import { ListOwnFactorsUseCase, RegenerateRecoveryCodesUseCase, RemoveOwnTotpUseCase } from '../application/mfa/manage-own-factors.use-cases';
import { ResetUserMfaUseCase } from '../application/mfa/reset-user-mfa.use-case';
import { OwnFactorProof } from '../application/mfa/own-factor-proof';
import { PasskeyCeremonies } from '../application/mfa/passkey-ceremonies';
import { PasskeySignInOptionsUseCase } from '../application/mfa/passkey-sign-in-options.use-case';
import { FinishPasskeyRegistrationUseCase, RemoveOwnPasskeyUseCase, RenamePasskeyUseCase, StartPasskeyRegistrationUseCase } from '../application/mfa/passkey.use-cases';
import type { WebAuthn } from '../application/ports/webauthn.port';
import { ConfirmTotpEnrollmentUseCase, StartTotpEnrollmentUseCase } from '../application/mfa/totp-enrollment.use-cases';
import type { MfaStore } from '../application/ports/mfa-store.port';
import type { SecretCipher } from '../application/ports/secret-cipher.port';
import type { Pseudonyms } from '../application/ports/pseudonyms.port';
import type { SignInTickets } from '../application/ports/sign-in-tickets.port';
import type { RecoveryCodeGenerator, Totp } from '../application/ports/totp.port';
import type { Config } from './config/config';
import { AesGcmSecretCipher } from './crypto/aes-gcm-secret-cipher';
import { mfaKeyOf } from './configured-keys';
import { OtplibTotp, RandomRecoveryCodes } from './crypto/otplib-totp';
import { SealedSignInTickets } from './crypto/sealed-sign-in-tickets';
import { HmacPseudonyms } from './crypto/hmac-pseudonyms';
import { SimpleWebAuthn } from './crypto/simplewebauthn-webauthn';
import { describeError, type Logger } from './logging/logger';
import { TypeOrmMfaStore } from './persistence/typeorm/typeorm-mfa.store';
import type { PersistenceCradle, Registrations } from './persistence-registrations';

/** Second factors' part of the API's cradle (#24). */
export interface MfaCradle {
  /** Outside any unit of work (reads, a code's use); in one, `scope.mfa`. */
  mfaStore: MfaStore;
  /** MFA_ENCRYPTION_KEY, or the embedded default's key under DATA_DIR. */
  mfaKey: Buffer;
  /** Seals factors' secrets with mfaKey. */
  secretCipher: SecretCipher;
  /** The sign-in's second-step tickets, sealed with a key derived from mfaKey. */
  signInTickets: SignInTickets;
  /** What the audit trail names a text typed for no account by (a key derived from mfaKey). */
  pseudonyms: Pseudonyms;
  totp: Totp;
  recoveryCodeGenerator: RecoveryCodeGenerator;
  recoveryCodeHasher: RecoveryCodeHasher;
  mfaChallenges: MfaChallenges;
  /** MFA_REQUIRED_PERMISSIONS: which tokens are enrollment-only. */
  mfaPolicy: MfaPolicy;
  startTotpEnrollment: StartTotpEnrollmentUseCase;
  confirmTotpEnrollment: ConfirmTotpEnrollmentUseCase;
  listOwnFactors: ListOwnFactorsUseCase;
  removeOwnTotp: RemoveOwnTotpUseCase;
  regenerateRecoveryCodes: RegenerateRecoveryCodesUseCase;
  completeMfaSignIn: CompleteMfaSignInUseCase;
  resetUserMfa: ResetUserMfaUseCase;
  /** The relying party PUBLIC_URL names (its origin, its host as the RP ID). */
  webAuthn: WebAuthn;
  passkeyCeremonies: PasskeyCeremonies;
  /** The password, or a current code: what adding or removing one's own factor, or new recovery codes, ask for. */
  ownFactorProof: OwnFactorProof;
  startPasskeyRegistration: StartPasskeyRegistrationUseCase;
  finishPasskeyRegistration: FinishPasskeyRegistrationUseCase;
  renamePasskey: RenamePasskeyUseCase;
  removeOwnPasskey: RemoveOwnPasskeyUseCase;
  passkeySignInOptions: PasskeySignInOptionsUseCase;
}

export function mfaRegistrations(config: Pick<Config, 'mfaEncryptionKey' | 'mfaRequiredPermissions' | 'dataDir' | 'publicUrl' | 'database'>, logger: Logger): Registrations<MfaCradle> {
  return {
    mfaStore: asFunction(
      ({ dataSource, sqliteWriteQueue, loginAttemptKeys }: PersistenceCradle) =>
        new TypeOrmMfaStore({
          manager: dataSource.manager,
          sqliteWriteQueue,
          loginAttemptKeys,
          onSweepFailed: (error) => logger.warn({ reason: describeError(error) }, 'sweep of expired passkey challenges (and mfa tickets of an earlier version) failed; retrying at the next sweep'),
        }),
    ).singleton(),
    mfaKey: asFunction(() => mfaKeyOf(config, logger)).singleton(),
    secretCipher: asFunction(({ mfaKey }: MfaCradle) => {
      // At most one line a minute: every code of every such user would otherwise log one.
      let loggedAt = Number.NEGATIVE_INFINITY;
      return new AesGcmSecretCipher(mfaKey, (reason) => {
        if (Date.now() - loggedAt < 60_000) return;
        loggedAt = Date.now();
        logger.error(
          { reason },
          'a second factor’s secret does not open with MFA_ENCRYPTION_KEY (lost or rotated?): its codes are refused as wrong; restore the key, or reset the users’ factors (DELETE /v1/users/{id}/mfa)',
        );
      });
    }).singleton(),
    // Sealed with a key derived from the same one: every replica that opens a factor opens a ticket.
    signInTickets: asFunction(({ mfaKey }: MfaCradle) => new SealedSignInTickets(mfaKey)).singleton(),
    pseudonyms: asFunction((cradle: MfaCradle) => new HmacPseudonyms(() => cradle.mfaKey)).singleton(),
    // The issuer an authenticator app shows beside the account: the service's host name (no port: the key URI format
    // allows no colon in it).
    totp: asFunction(() => new OtplibTotp(new URL(config.publicUrl).hostname)).singleton(),
    recoveryCodeGenerator: asClass(RandomRecoveryCodes).singleton(),
    recoveryCodeHasher: asClass(Argon2RecoveryCodeHasher).singleton(),
    mfaChallenges: asClass(MfaChallenges).singleton(),
    mfaPolicy: asFunction(
      ({ mfaStore, roleRepository }: MfaCradle & { roleRepository: RoleRepository }) =>
        new MfaPolicy({ mfaStore, roleRepository, mfaRequiredPermissions: config.mfaRequiredPermissions ?? [] }),
    ).singleton(),
    startTotpEnrollment: asClass(StartTotpEnrollmentUseCase).singleton(),
    confirmTotpEnrollment: asClass(ConfirmTotpEnrollmentUseCase).singleton(),
    listOwnFactors: asClass(ListOwnFactorsUseCase).singleton(),
    removeOwnTotp: asClass(RemoveOwnTotpUseCase).singleton(),
    regenerateRecoveryCodes: asClass(RegenerateRecoveryCodesUseCase).singleton(),
    completeMfaSignIn: asClass(CompleteMfaSignInUseCase).singleton(),
    resetUserMfa: asClass(ResetUserMfaUseCase).singleton(),
    webAuthn: asFunction(() => new SimpleWebAuthn(config.publicUrl)).singleton(),
    passkeyCeremonies: asClass(PasskeyCeremonies).singleton(),
    ownFactorProof: asClass(OwnFactorProof).singleton(),
    startPasskeyRegistration: asClass(StartPasskeyRegistrationUseCase).singleton(),
    finishPasskeyRegistration: asClass(FinishPasskeyRegistrationUseCase).singleton(),
    renamePasskey: asClass(RenamePasskeyUseCase).singleton(),
    removeOwnPasskey: asClass(RemoveOwnPasskeyUseCase).singleton(),
    passkeySignInOptions: asClass(PasskeySignInOptionsUseCase).singleton(),
  };
}
