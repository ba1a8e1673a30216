import { AuditActions } from '../../domain/audit/audit-entry';
import { RECOVERY_CODE_COUNT } from '../../domain/mfa/mfa';
import { userMfaEnrolled, userMfaRemoved } from '../../domain/mfa/mfa.events';
import { InvalidWebAuthnResponseError, MAX_PASSKEYS_PER_USER, type Passkey, PasskeyLimitError, PasskeyNotFoundError, passkeyName } from '../../domain/mfa/passkey';
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
import type { PasskeyCeremonies } from './passkey-ceremonies';
import { factorRemoval } from './factor-kinds';

/** A passkey as its owner sees it: no credential id, no key. */
export interface PasskeyView {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export function passkeyView(p: Passkey): PasskeyView {
  return { id: p.id, name: p.name, createdAt: p.createdAt, lastUsedAt: p.lastUsedAt };
}

interface Deps {
  auditRecorder: AuditRecorder;
  userRepository: UserRepository;
  unitOfWork: UnitOfWork;
  mfaStore: MfaStore;
  passkeyCeremonies: PasskeyCeremonies;
  recoveryCodeGenerator: RecoveryCodeGenerator;
  recoveryCodeHasher: RecoveryCodeHasher;
  idGenerator: IdGenerator;
  clock: Clock;
}

/**
 * Creation options for a new passkey of the caller's (its challenge stored: five minutes, one response), on the
 * password or a current authenticator code: a stolen access token alone cannot register its holder's passkey.
 */
export class StartPasskeyRegistrationUseCase {
  constructor(private readonly deps: Deps & { ownFactorProof: OwnFactorProof }) {}

  async execute({ actor, proof }: { actor: Actor; proof: FactorProof }): Promise<Record<string, unknown>> {
    const { userRepository, mfaStore, passkeyCeremonies, auditRecorder } = this.deps;
    const user = await ownUser(userRepository, actor);
    const passkeys = await mfaStore.passkeysOf(user.id);
    // A full set costs no attempt of the lockout.
    if (passkeys.length >= MAX_PASSKEYS_PER_USER) throw new PasskeyLimitError();
    await this.deps.ownFactorProof.check(user, proof, AuditActions.mfaEnrollmentStarted);
    const name = user.username ?? user.email;
    const options = await passkeyCeremonies.registrationOptions({ id: user.id, name, displayName: user.name ?? name }, passkeys);
    await auditRecorder.record({ action: AuditActions.mfaEnrollmentStarted, actor: userActor(user)!, target: userTarget(user), code: 'webauthn' });
    return options;
  }
}

/**
 * Registers the passkey a browser created for those options: active at once (the ceremony proved it). A user's
 * first factor comes with ten recovery codes, shown once, as an authenticator app's does.
 */
export class FinishPasskeyRegistrationUseCase {
  constructor(private readonly deps: Deps) {}

  async execute({ actor, name, response }: { actor: Actor; name?: string; response: unknown }): Promise<{ passkey: PasskeyView; recoveryCodes: string[] | null }> {
    const { userRepository, unitOfWork, passkeyCeremonies, auditRecorder, idGenerator, clock } = this.deps;
    const user = await ownUser(userRepository, actor);
    const actorName = userActor(user)!;
    const credential = await passkeyCeremonies.verifyRegistration(user.id, response);
    if (!credential) {
      await auditRecorder.record({ action: AuditActions.mfaEnrolled, outcome: 'failure', code: 'invalid_webauthn_response', actor: actorName, target: userTarget(user) });
      throw new InvalidWebAuthnResponseError();
    }
    const now = clock.now();
    const id = idGenerator.next();
    // A first factor's recovery codes are hashed (slow, on the hashing threads) before the transaction, not in it.
    const fresh = async () => {
      const codes = this.newRecoveryCodes();
      return { codes, ...(await hashRecoveryCodes(this.deps.recoveryCodeHasher, codes)) };
    };
    const prepared = (await holdsActiveFactor(this.deps.mfaStore, user.id)) ? null : await fresh();
    let recoveryCodes: string[] | null = null;
    const passkey = await unitOfWork.run(async ({ mfa, outbox, audit }) => {
      const held = await mfa.passkeysOf(user.id);
      if (held.length >= MAX_PASSKEYS_PER_USER) throw new PasskeyLimitError();
      // Its last factor removed meanwhile: codes made here after all (a rare race).
      const set = (await holdsActiveFactor(mfa, user.id)) ? null : (prepared ?? (await fresh()));
      recoveryCodes = set?.codes ?? null;
      const added: Passkey = { id, userId: user.id, name: passkeyName(name, held.length + 1), ...credential, createdAt: now, lastUsedAt: null };
      if (!(await mfa.addPasskey(added))) throw new InvalidWebAuthnResponseError('This passkey is registered already');
      if (set) await mfa.replaceRecoveryCodes(user.id, set.hashes, now, set.salt);
      await outbox.append([userMfaEnrolled(idGenerator.next(), user.id, 'webauthn', now)]);
      await auditRecorder.write(audit, { action: AuditActions.mfaEnrolled, actor: actorName, target: userTarget(user), code: 'webauthn' });
      return added;
    });
    return { passkey: passkeyView(passkey), recoveryCodes };
  }

  private newRecoveryCodes(): string[] {
    return Array.from({ length: RECOVERY_CODE_COUNT }, () => this.deps.recoveryCodeGenerator.next());
  }
}

/** A new name for one of the caller's passkeys. */
export class RenamePasskeyUseCase {
  constructor(private readonly deps: Pick<Deps, 'auditRecorder' | 'userRepository' | 'mfaStore'>) {}

  async execute({ actor, passkeyId, name }: { actor: Actor; passkeyId: string; name: string }): Promise<PasskeyView> {
    const { userRepository, mfaStore, auditRecorder } = this.deps;
    const user = await ownUser(userRepository, actor);
    const before = (await mfaStore.passkeysOf(user.id)).find((p) => p.id === passkeyId);
    const renamed = passkeyName(name, 1);
    if (!before || !(await mfaStore.renamePasskey(user.id, passkeyId, renamed))) throw new PasskeyNotFoundError();
    await auditRecorder.record({ action: AuditActions.mfaPasskeyRenamed, actor: userActor(user)!, target: userTarget(user), changes: [{ field: 'name', before: before.name, after: renamed }] });
    return passkeyView({ ...before, name: renamed });
  }
}

/** Removes one of the caller's passkeys, on the password or a current authenticator code; the recovery codes go with the last factor. */
export class RemoveOwnPasskeyUseCase {
  constructor(private readonly deps: Pick<Deps, 'auditRecorder' | 'userRepository' | 'unitOfWork' | 'mfaStore' | 'idGenerator' | 'clock'> & { ownFactorProof: OwnFactorProof }) {}

  async execute({ actor, passkeyId, proof }: { actor: Actor; passkeyId: string; proof: FactorProof }): Promise<void> {
    const { userRepository, mfaStore, unitOfWork, auditRecorder, idGenerator, clock } = this.deps;
    const user = await ownUser(userRepository, actor);
    // An unknown id costs no attempt of the lockout.
    const passkey = (await mfaStore.passkeysOf(user.id)).find((p) => p.id === passkeyId);
    if (!passkey) throw new PasskeyNotFoundError();
    await this.deps.ownFactorProof.check(user, proof, AuditActions.mfaRemoved);
    await unitOfWork.run(async ({ mfa, outbox, audit }) => {
      const removal = await factorRemoval(mfa, user.id, () => mfa.removePasskey(user.id, passkeyId));
      if (!removal) throw new PasskeyNotFoundError();
      const removed = { types: ['webauthn' as const], remaining: removal.remaining };
      await outbox.append([userMfaRemoved(idGenerator.next(), user.id, removed, user.id, clock.now())]);
      // Which passkey went, by the name its owner gave it (as a rename's entry says it).
      const changes = [{ field: 'passkey', before: passkey.name, after: null }, ...removal.changes];
      await auditRecorder.write(audit, { action: AuditActions.mfaRemoved, actor: userActor(user)!, target: userTarget(user), code: 'webauthn', changes });
    });
  }
}
