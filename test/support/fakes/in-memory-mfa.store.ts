import type { MfaStore, SecondStepFactors, TicketHolder } from '../../../src/application/ports/mfa-store.port';
import type { UserRepository } from '../../../src/application/ports/user-repository.port';
import type { MfaFactor, MfaFactorType, RecoveryCode } from '../../../src/domain/mfa/mfa';
import { counterAdvances, type Passkey, type WebAuthnCeremony, type WebAuthnChallenge } from '../../../src/domain/mfa/passkey';
import { TransactionalFake } from './transactional-fake';

interface Tables {
  factors: Map<string, MfaFactor>;
  codes: Map<string, RecoveryCode>;
  passkeys: Map<string, Passkey>;
  webAuthnChallenges: Map<string, WebAuthnChallenge>;
}

/** A write: applied to the transaction's copy at once, replayed on what is committed at commit (conditions checked again). */
type Write = (tables: Tables) => void;

/**
 * The MFA tables as the database holds them. Outside a unit of work each call applies at once; in one
 * (beginTransaction), writes replay on commit, so a conditional use (`useTimeStep`, `useRecoveryCode`,
 * `usePasskey`) that another commit won meanwhile throws there, as the row it matched is gone.
 * `revocationBumps` counts the users whose factors changed (the adapter moves their revocation epoch).
 */
export class InMemoryMfaStore extends TransactionalFake implements MfaStore {
  private tables: Tables = { factors: new Map(), codes: new Map(), passkeys: new Map(), webAuthnChallenges: new Map() };
  private readonly writes: Write[] = [];
  revocationBumps: string[] = [];

  /**
   * `users`: where a ticket's holder is found (the adapter joins the users table); without it, no ticket has one.
   * `ticketUses`: the lockout counters that keep the tickets' use (the adapter reads login_attempts); without them,
   * no ticket was used.
   */
  constructor(
    private readonly users?: Pick<UserRepository, 'findById'>,
    private readonly ticketUses?: { ticketsUsedThrough(accountKey: string): number | null; factorFailures(accountKey: string): number },
  ) {
    super();
  }

  async factorsOf(userId: string): Promise<MfaFactor[]> {
    await this.io();
    return [...this.tables.factors.values()].filter((f) => f.userId === userId).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).map((f) => ({ ...f }));
  }

  async savePending(factor: MfaFactor): Promise<boolean> {
    await this.io();
    return this.apply((t) => {
      const existing = [...t.factors.values()].find((f) => f.userId === factor.userId && f.type === factor.type);
      if (existing?.confirmedAt) return false;
      if (existing) t.factors.delete(existing.id);
      t.factors.set(factor.id, { ...factor });
      return true;
    });
  }

  async confirm(userId: string, factorId: string, at: Date): Promise<boolean> {
    await this.io();
    return this.apply((t) => {
      const factor = t.factors.get(factorId);
      if (!factor || factor.userId !== userId || factor.confirmedAt) return false;
      t.factors.set(factorId, { ...factor, confirmedAt: new Date(at) });
      this.revocationBumps.push(userId);
      return true;
    });
  }

  async useTimeStep(factorId: string, step: number): Promise<boolean> {
    await this.io();
    return this.apply((t) => {
      const factor = t.factors.get(factorId);
      if (!factor || (factor.lastUsedStep !== null && factor.lastUsedStep >= step)) return false;
      t.factors.set(factorId, { ...factor, lastUsedStep: step });
      return true;
    });
  }

  async removeFactors(userId: string, type?: MfaFactorType): Promise<number> {
    await this.io();
    return this.apply((t) => {
      const gone = [...t.factors.values()].filter((f) => f.userId === userId && (!type || f.type === type));
      for (const f of gone) t.factors.delete(f.id);
      const passkeys = type ? [] : [...t.passkeys.values()].filter((p) => p.userId === userId);
      for (const p of passkeys) t.passkeys.delete(p.id);
      dropCodesWithoutFactor(t, userId);
      const removed = gone.filter((f) => f.confirmedAt !== null).length + passkeys.length;
      if (removed > 0) this.revocationBumps.push(userId);
      return removed;
    }, false);
  }

  async replaceRecoveryCodes(userId: string, codeHashes: readonly string[], at: Date, salt?: string): Promise<void> {
    await this.io();
    this.apply((t) => {
      for (const [hash, c] of t.codes) if (c.userId === userId) t.codes.delete(hash);
      for (const codeHash of codeHashes) t.codes.set(codeHash, { codeHash, userId, salt: salt ?? null, createdAt: new Date(at), usedAt: null });
      this.revocationBumps.push(userId);
      return true;
    });
  }

  async useRecoveryCode(userId: string, codeHash: string, at: Date): Promise<number | null> {
    await this.io();
    const used = this.apply((t) => {
      const code = t.codes.get(codeHash);
      if (!code || code.userId !== userId || code.usedAt) return false;
      t.codes.set(codeHash, { ...code, usedAt: new Date(at) });
      return true;
    });
    return used ? this.unused(userId) : null;
  }

  async restoreRecoveryCode(userId: string, codeHash: string): Promise<void> {
    await this.io();
    this.apply((t) => {
      const code = t.codes.get(codeHash);
      if (code?.userId === userId) t.codes.set(codeHash, { ...code, usedAt: null });
      return true;
    });
  }

  async recoveryCodeSalt(userId: string): Promise<string | null> {
    await this.io();
    for (const code of this.tables.codes.values()) if (code.userId === userId) return code.salt;
    return null;
  }

  async remainingRecoveryCodes(userId: string): Promise<number> {
    await this.io();
    return this.unused(userId);
  }

  async secondStepOf(userId: string, options: { passkeys: boolean }): Promise<SecondStepFactors> {
    await this.io();
    const factors = [...this.tables.factors.values()].filter((f) => f.userId === userId).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    const passkeys = options.passkeys ? this.passkeyRowsOf(userId) : [];
    return { factors: factors.map((f) => ({ ...f })), passkeys, recoveryCodes: this.unused(userId) };
  }

  async ticketHolder(userId: string, accountKey: string): Promise<TicketHolder> {
    await this.io();
    const factors = [...this.tables.factors.values()].filter((f) => f.userId === userId).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    const found = (await this.users?.findById(userId)) ?? null;
    const holder = found && found.status !== 'deleted' ? found : null;
    return {
      holder,
      factors: holder ? factors.map((f) => ({ ...f })) : [],
      ticketsUsedThrough: this.ticketUses?.ticketsUsedThrough(accountKey) ?? null,
      factorFailures: this.ticketUses?.factorFailures(accountKey) ?? 0,
    };
  }

  async passkeysOf(userId: string): Promise<Passkey[]> {
    await this.io();
    return this.passkeyRowsOf(userId);
  }

  private passkeyRowsOf(userId: string): Passkey[] {
    return [...this.tables.passkeys.values()].filter((p) => p.userId === userId).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).map((p) => ({ ...p }));
  }

  async addPasskey(passkey: Passkey): Promise<boolean> {
    await this.io();
    return this.apply((t) => {
      if ([...t.passkeys.values()].some((p) => p.credentialId === passkey.credentialId)) return false;
      t.passkeys.set(passkey.id, { ...passkey, transports: [...passkey.transports] });
      this.revocationBumps.push(passkey.userId);
      return true;
    });
  }

  async renamePasskey(userId: string, passkeyId: string, name: string): Promise<boolean> {
    await this.io();
    return this.apply((t) => {
      const passkey = t.passkeys.get(passkeyId);
      if (!passkey || passkey.userId !== userId) return false;
      t.passkeys.set(passkeyId, { ...passkey, name });
      return true;
    });
  }

  async removePasskey(userId: string, passkeyId: string): Promise<boolean> {
    await this.io();
    return this.apply((t) => {
      const passkey = t.passkeys.get(passkeyId);
      if (!passkey || passkey.userId !== userId) return false;
      t.passkeys.delete(passkeyId);
      dropCodesWithoutFactor(t, userId);
      this.revocationBumps.push(userId);
      return true;
    });
  }

  async usePasskey(passkeyId: string, counter: number, at: Date): Promise<boolean> {
    await this.io();
    return this.apply((t) => {
      const passkey = t.passkeys.get(passkeyId);
      if (!passkey || !counterAdvances(passkey.counter, counter)) return false;
      t.passkeys.set(passkeyId, { ...passkey, counter, lastUsedAt: new Date(at) });
      return true;
    });
  }

  async addWebAuthnChallenge(challenge: WebAuthnChallenge): Promise<void> {
    await this.io();
    this.apply((t) => {
      if (t.webAuthnChallenges.has(challenge.challengeHash)) throw new Error('webauthn_challenges: duplicate challenge hash');
      t.webAuthnChallenges.set(challenge.challengeHash, { ...challenge });
      return true;
    });
  }

  async takeWebAuthnChallenge(challengeHash: string, userId: string, ceremony: WebAuthnCeremony, at: Date): Promise<boolean> {
    await this.io();
    return this.apply((t) => {
      const row = t.webAuthnChallenges.get(challengeHash);
      if (!row || row.userId !== userId || row.ceremony !== ceremony || row.expiresAt <= at) return false;
      t.webAuthnChallenges.delete(challengeHash);
      return true;
    });
  }

  async deleteExpired(now: Date, limit: number): Promise<number> {
    await this.io();
    return this.apply((t) => {
      let deleted = 0;
      for (const [hash, row] of t.webAuthnChallenges) if (deleted < limit && row.expiresAt < now && t.webAuthnChallenges.delete(hash)) deleted++;
      return deleted;
    }, false);
  }

  // ---- transactions, driven by InMemoryUnitOfWork ----

  beginTransaction(): InMemoryMfaStore {
    const copy = new InMemoryMfaStore(this.users, this.ticketUses);
    copy.tables = cloneTables(this.tables);
    copy.revocationBumps = this.revocationBumps;
    return copy;
  }

  prepareCommit(transaction: InMemoryMfaStore): () => void {
    const staged = cloneTables(this.tables);
    for (const write of transaction.writes) write(staged);
    return () => {
      this.tables = staged;
    };
  }

  /**
   * Applies `change` now and keeps it for the commit's replay, where an outcome that differs (a conditional use
   * that another commit won meanwhile) fails the commit. `strict: false` for a delete, which may find less.
   */
  private apply<T extends boolean | number>(change: (tables: Tables) => T, strict = true): T {
    const outcome = change(this.tables);
    if (outcome) {
      this.writes.push((tables) => {
        if (change(tables) !== outcome && strict) throw new Error('mfa store: a row this transaction changed was changed by another one meanwhile');
      });
    }
    return outcome;
  }

  private unused(userId: string): number {
    return [...this.tables.codes.values()].filter((c) => c.userId === userId && !c.usedAt).length;
  }
}

function cloneTables(t: Tables): Tables {
  return { factors: new Map(t.factors), codes: new Map(t.codes), passkeys: new Map(t.passkeys), webAuthnChallenges: new Map(t.webAuthnChallenges) };
}

/** The recovery codes go with the user's last factor or passkey. */
function dropCodesWithoutFactor(t: Tables, userId: string): void {
  if ([...t.factors.values()].some((f) => f.userId === userId && f.confirmedAt !== null) || [...t.passkeys.values()].some((p) => p.userId === userId)) return;
  for (const [hash, c] of t.codes) if (c.userId === userId) t.codes.delete(hash);
}
