import { type EntityManager, IsNull, Not } from 'typeorm';
import type { MfaStore, SecondStepFactors, TicketHolder } from '../../../application/ports/mfa-store.port';
import type { MfaFactor, MfaFactorType } from '../../../domain/mfa/mfa';
import type { Passkey, WebAuthnCeremony, WebAuthnChallenge } from '../../../domain/mfa/passkey';
import { MfaFactorSchema, RecoveryCodeSchema, toFactor, WebAuthnCredentialSchema } from './mfa-records';
import type { LoginAttemptKeys } from './login-attempt-key';
import { type MfaSignInStatements, mfaSignInStatementsOf } from './mfa-sign-in-statements';
import { passkeyRows } from './typeorm-passkey-rows';
import { bumpRevocationEpoch } from './revocation-epochs';
import type { SqliteWriteQueue } from './sqlite-write-queue';

export interface TypeOrmMfaStoreDeps {
  /** The data source's manager, or a unit of work's transaction's. */
  manager: EntityManager;
  sqliteWriteQueue: SqliteWriteQueue;
  /** The lockout row of an account, whose tickets' use the second step reads. */
  loginAttemptKeys: LoginAttemptKeys;
  /** How often this process deletes expired passkey challenges (every replica sweeps), after one is added. */
  sweepEveryMs?: number;
  /** The sweep runs after a sign-in's answer is on its way: its failure is only reported. */
  onSweepFailed?: (error: unknown) => void;
}

/** Rows deleted per statement by the sweep: a short delete holds its row locks only briefly. */
const SWEEP_BATCH = 500;


/**
 * `mfa_factors`, `mfa_recovery_codes` and the passkeys' tables. Every use is one conditional statement
 * (`… WHERE used_at IS NULL`, `… WHERE last_used_step < ?`), so two replicas racing on one code: one wins.
 * A change to which factors a user holds moves the user's revocation epoch in its transaction. A sign-in's
 * statements (both steps) are plain SQL: mfa-sign-in-statements.ts.
 */
export class TypeOrmMfaStore implements MfaStore {
  private readonly manager: EntityManager;
  private readonly keys: LoginAttemptKeys;
  private readonly queue: SqliteWriteQueue;
  private readonly sweepEveryMs: number;
  private readonly onSweepFailed: (error: unknown) => void;
  private nextSweepAt: number | null = null;
  private sweeping = false;

  constructor(deps: TypeOrmMfaStoreDeps) {
    this.manager = deps.manager;
    this.keys = deps.loginAttemptKeys;
    this.queue = deps.sqliteWriteQueue;
    this.sweepEveryMs = deps.sweepEveryMs ?? 60_000;
    this.onSweepFailed = deps.onSweepFailed ?? (() => undefined);
  }

  factorsOf(userId: string): Promise<MfaFactor[]> {
    return this.outside(async () => (await this.manager.getRepository(MfaFactorSchema).find({ where: { userId }, order: { createdAt: 'ASC' } })).map(toFactor));
  }

  savePending(factor: MfaFactor): Promise<boolean> {
    return this.transaction(async (manager) => {
      const factors = manager.getRepository(MfaFactorSchema);
      // A pending factor signs nobody in, so replacing one narrows no access: the epoch stays (and the answer does
      // not wait out the revocation window).
      await factors.delete({ userId: factor.userId, type: factor.type, confirmedAt: IsNull() });
      if ((await factors.countBy({ userId: factor.userId, type: factor.type })) > 0) return false;
      await factors.insert({ ...factor });
      return true;
    });
  }

  confirm(userId: string, factorId: string, at: Date): Promise<boolean> {
    return this.transaction(async (manager) => {
      const { affected } = await manager.getRepository(MfaFactorSchema).update({ id: factorId, userId, confirmedAt: IsNull() }, { confirmedAt: at });
      if (affected !== 1) return false;
      await bumpRevocationEpoch(manager, userId);
      return true;
    });
  }

  useTimeStep(factorId: string, step: number): Promise<boolean> {
    return this.outside(() => this.statements().useTimeStep(this.manager, factorId, step));
  }

  removeFactors(userId: string, type?: MfaFactorType): Promise<number> {
    return this.transaction(async (manager) => {
      const factors = manager.getRepository(MfaFactorSchema);
      const which = type ? { userId, type } : { userId };
      // Counted before: a pending enrollment goes too, but is no factor anybody held.
      const confirmed = await factors.countBy({ ...which, confirmedAt: Not(IsNull()) });
      await factors.delete(which);
      const passkeys = type ? 0 : ((await manager.getRepository(WebAuthnCredentialSchema).delete({ userId })).affected ?? 0);
      const removed = confirmed + passkeys;
      await passkeyRows.dropRecoveryCodesWithoutFactor(manager, userId);
      if (removed > 0) await bumpRevocationEpoch(manager, userId);
      return removed;
    });
  }

  replaceRecoveryCodes(userId: string, codeHashes: readonly string[], at: Date, salt?: string): Promise<void> {
    return this.transaction(async (manager) => {
      const codes = manager.getRepository(RecoveryCodeSchema);
      await codes.delete({ userId });
      if (codeHashes.length > 0) await codes.insert(codeHashes.map((codeHash) => ({ codeHash, userId, salt: salt ?? null, createdAt: at, usedAt: null })));
      await bumpRevocationEpoch(manager, userId);
    });
  }

  useRecoveryCode(userId: string, codeHash: string, at: Date): Promise<number | null> {
    return this.outside(async () => {
      const codes = this.manager.getRepository(RecoveryCodeSchema);
      const { affected } = await codes.update({ codeHash, userId, usedAt: IsNull() }, { usedAt: at });
      if (affected !== 1) return null;
      return codes.countBy({ userId, usedAt: IsNull() });
    });
  }

  restoreRecoveryCode(userId: string, codeHash: string): Promise<void> {
    // No other use came between: a used code matches no use. Regenerated meanwhile, the row is gone and nothing changes.
    return this.outside(async () => {
      await this.manager.getRepository(RecoveryCodeSchema).update({ codeHash, userId }, { usedAt: null });
    });
  }

  recoveryCodeSalt(userId: string): Promise<string | null> {
    return this.outside(async () => {
      const row = await this.manager.getRepository(RecoveryCodeSchema).findOne({ select: { salt: true }, where: { userId } });
      return row?.salt ?? null;
    });
  }

  remainingRecoveryCodes(userId: string): Promise<number> {
    return this.outside(() => this.manager.getRepository(RecoveryCodeSchema).countBy({ userId, usedAt: IsNull() }));
  }

  secondStepOf(userId: string, options: { passkeys: boolean }): Promise<SecondStepFactors> {
    return this.outside(() => this.statements().secondStepOf(this.manager, userId, options.passkeys));
  }

  ticketHolder(userId: string, accountKey: string): Promise<TicketHolder> {
    return this.outside(() => this.statements().ticketHolder(this.manager, userId, this.keys.of(accountKey)));
  }

  passkeysOf(userId: string): Promise<Passkey[]> {
    return this.outside(() => passkeyRows.of(this.manager, userId));
  }

  addPasskey(passkey: Passkey): Promise<boolean> {
    return this.transaction((manager) => passkeyRows.add(manager, passkey));
  }

  renamePasskey(userId: string, passkeyId: string, name: string): Promise<boolean> {
    return this.outside(() => passkeyRows.rename(this.manager, userId, passkeyId, name));
  }

  removePasskey(userId: string, passkeyId: string): Promise<boolean> {
    return this.transaction((manager) => passkeyRows.remove(manager, userId, passkeyId));
  }

  usePasskey(passkeyId: string, counter: number, at: Date): Promise<boolean> {
    return this.outside(() => passkeyRows.use(this.manager, passkeyId, counter, at));
  }

  addWebAuthnChallenge(challenge: WebAuthnChallenge): Promise<void> {
    return this.outside(() => passkeyRows.addChallenge(this.manager, challenge)).finally(() => this.sweepIfDue(challenge.createdAt));
  }

  takeWebAuthnChallenge(challengeHash: string, userId: string, ceremony: WebAuthnCeremony, at: Date): Promise<boolean> {
    return this.outside(() => passkeyRows.takeChallenge(this.manager, challengeHash, userId, ceremony, at));
  }

  deleteExpired(now: Date, limit: number): Promise<number> {
    return this.outside(() => passkeyRows.deleteExpired(this.manager, now, limit));
  }

  /**
   * Passkey challenges nobody came back for (and tickets an earlier version stored): deleted a batch at a time, one interval after this process
   * first handed one out and every interval since, after the request that found the sweep due (judged by its `now`).
   */
  private sweepIfDue(now: Date): void {
    if (this.manager.queryRunner) return;
    const at = Date.now();
    if (this.nextSweepAt === null) this.nextSweepAt = at + this.sweepEveryMs;
    if (this.sweeping || at < this.nextSweepAt) return;
    this.sweeping = true;
    this.nextSweepAt = at + this.sweepEveryMs;
    void (async () => {
      while ((await this.deleteExpired(now, SWEEP_BATCH)) === SWEEP_BATCH);
    })()
      .catch((error: unknown) => this.onSweepFailed(error))
      .finally(() => {
        this.sweeping = false;
      });
  }

  private statements(): MfaSignInStatements {
    return mfaSignInStatementsOf(this.manager.connection);
  }

  /** A statement on its own (queued on SQLite), or in the unit of work's transaction. */
  private outside<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.outside(this.manager, work);
  }

  /** Several statements that commit together: the unit of work's transaction, or one of their own. */
  private transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.manager.queryRunner) return work(this.manager);
    return this.queue.serialize(() => this.manager.transaction(work));
  }
}
