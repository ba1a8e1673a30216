import { AuditActions } from '../../domain/audit/audit-entry';
import { MfaNotEnabledError, RECOVERY_CODE_COUNT, isConfirmed, lastUsedAt } from '../../domain/mfa/mfa';
import { userMfaRemoved } from '../../domain/mfa/mfa.events';
import { type AuditRecorder, userActor, userTarget } from '../audit/audit-recorder';
import type { Actor } from '../auth/actor';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { RecoveryCodeHasher } from '../ports/recovery-code-hasher.port';
import type { RecoveryCodeGenerator } from '../ports/totp.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';
import type { UserRepository } from '../ports/user-repository.port';
import { hashRecoveryCodes } from './mfa-codes';
import { holdsActiveFactor, ownUser } from './own-factor-access';
import type { FactorProof, OwnFactorProof } from './own-factor-proof';
import { factorRemoval } from './factor-kinds';

export type OwnFactor =
  | { type: 'totp'; confirmed: boolean; createdAt: Date; confirmedAt: Date | null; lastUsedAt: Date | null }
  | { type: 'webauthn'; id: string; name: string; confirmed: true; createdAt: Date; confirmedAt: Date; lastUsedAt: Date | null };

export interface OwnFactors {
  factors: OwnFactor[];
  recoveryCodesRemaining: number;
}

/** The caller's factors (no secret, no key), pending ones included, its passkeys, and how many recovery codes are left. */
export class ListOwnFactorsUseCase {
  constructor(private readonly deps: { userRepository: UserRepository; mfaStore: MfaStore; clock: Clock }) {}

  async execute({ actor }: { actor: Actor }): Promise<OwnFactors> {
    const user = await ownUser(this.deps.userRepository, actor);
    const factors = await this.deps.mfaStore.factorsOf(user.id);
    const passkeys = await this.deps.mfaStore.passkeysOf(user.id);
    const now = this.deps.clock.now();
    return {
      factors: [
        ...factors.map((f): OwnFactor => ({ type: f.type, confirmed: isConfirmed(f), createdAt: f.createdAt, confirmedAt: f.confirmedAt, lastUsedAt: lastUsedAt(f, now) })),
        ...passkeys.map((p): OwnFactor => ({ type: 'webauthn', id: p.id, name: p.name, confirmed: true, createdAt: p.createdAt, confirmedAt: p.createdAt, lastUsedAt: p.lastUsedAt })),
      ],
      recoveryCodesRemaining: await this.deps.mfaStore.remainingRecoveryCodes(user.id),
    };
  }
}

/**
 * Removes the caller's authenticator app, on the password or a current code of it (checked as a sign-in checks
 * them, against the same lockout): a stolen access token alone cannot take the factor off. The recovery codes go
 * with the last factor.
 */
export class RemoveOwnTotpUseCase {
  constructor(
    private readonly deps: {
      auditRecorder: AuditRecorder;
      userRepository: UserRepository;
      unitOfWork: UnitOfWork;
      ownFactorProof: OwnFactorProof;
      idGenerator: IdGenerator;
      clock: Clock;
    },
  ) {}

  async execute({ actor, proof }: { actor: Actor; proof: FactorProof }): Promise<void> {
    const { userRepository, clock, auditRecorder, unitOfWork, idGenerator } = this.deps;
    const user = await ownUser(userRepository, actor);
    await this.deps.ownFactorProof.check(user, proof, AuditActions.mfaRemoved);
    await unitOfWork.run(async ({ mfa, outbox, audit }) => {
      const removal = await factorRemoval(mfa, user.id, async () => (await mfa.removeFactors(user.id, 'totp')) > 0);
      if (!removal) throw new MfaNotEnabledError();
      const removed = { types: ['totp' as const], remaining: removal.remaining };
      await outbox.append([userMfaRemoved(idGenerator.next(), user.id, removed, user.id, clock.now())]);
      await auditRecorder.write(audit, { action: AuditActions.mfaRemoved, actor: userActor(user)!, target: userTarget(user), code: 'totp', changes: removal.changes });
    });
  }
}

/**
 * Ten new recovery codes, shown once; every older one dies. Only for a user with an active factor, on the password
 * or a current authenticator code: each code is a way past the factor, not for a stolen access token alone.
 */
export class RegenerateRecoveryCodesUseCase {
  constructor(
    private readonly deps: {
      auditRecorder: AuditRecorder;
      userRepository: UserRepository;
      unitOfWork: UnitOfWork;
      mfaStore: MfaStore;
      ownFactorProof: OwnFactorProof;
      recoveryCodeGenerator: RecoveryCodeGenerator;
      recoveryCodeHasher: RecoveryCodeHasher;
      clock: Clock;
    },
  ) {}

  async execute({ actor, proof }: { actor: Actor; proof: FactorProof }): Promise<{ recoveryCodes: string[] }> {
    const { userRepository, unitOfWork, recoveryCodeGenerator, clock, auditRecorder } = this.deps;
    const user = await ownUser(userRepository, actor);
    // No factor costs no attempt of the lockout (checked again as the codes are replaced).
    if (!(await holdsActiveFactor(this.deps.mfaStore, user.id))) throw new MfaNotEnabledError();
    await this.deps.ownFactorProof.check(user, proof, AuditActions.mfaRecoveryCodesRegenerated);
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, () => recoveryCodeGenerator.next());
    const { salt, hashes } = await hashRecoveryCodes(this.deps.recoveryCodeHasher, recoveryCodes);
    const now = clock.now();
    await unitOfWork.run(async ({ mfa, audit }) => {
      if (!(await holdsActiveFactor(mfa, user.id))) throw new MfaNotEnabledError();
      await mfa.replaceRecoveryCodes(user.id, hashes, now, salt);
      await auditRecorder.write(audit, { action: AuditActions.mfaRecoveryCodesRegenerated, actor: userActor(user)!, target: userTarget(user) });
    });
    return { recoveryCodes };
  }
}
