import { type EntityManager, In, IsNull, LessThan, MoreThan, Not } from 'typeorm';
import type { Passkey, WebAuthnCeremony, WebAuthnChallenge } from '../../../domain/mfa/passkey';
import { MfaChallengeSchema, MfaFactorSchema, RecoveryCodeSchema, type WebAuthnCredentialRecord, WebAuthnCredentialSchema, WebAuthnChallengeSchema } from './mfa-records';
import { bumpRevocationEpoch } from './revocation-epochs';

/**
 * The statements of passkeys and WebAuthn challenges (#24), for TypeOrmMfaStore: each takes the manager it runs on
 * (the store's own, its transaction's, or the unit of work's), as the store decides.
 */
export const passkeyRows = {
  async of(manager: EntityManager, userId: string): Promise<Passkey[]> {
    const rows = await manager.getRepository(WebAuthnCredentialSchema).find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return rows.map(toPasskey);
  },

  /** In a transaction. */
  async add(manager: EntityManager, passkey: Passkey): Promise<boolean> {
    const credentials = manager.getRepository(WebAuthnCredentialSchema);
    if ((await credentials.countBy({ credentialId: passkey.credentialId })) > 0) return false;
    await credentials.insert({ ...passkey, transports: passkey.transports.join(','), lastUsedAt: passkey.lastUsedAt });
    await bumpRevocationEpoch(manager, passkey.userId);
    return true;
  },

  async rename(manager: EntityManager, userId: string, passkeyId: string, name: string): Promise<boolean> {
    const credentials = manager.getRepository(WebAuthnCredentialSchema);
    // MySQL counts changed rows, not matched ones: a rename to the same name is still found.
    if ((await credentials.countBy({ id: passkeyId, userId })) === 0) return false;
    await credentials.update({ id: passkeyId, userId }, { name });
    return true;
  },

  /** In a transaction. */
  async remove(manager: EntityManager, userId: string, passkeyId: string): Promise<boolean> {
    const { affected } = await manager.getRepository(WebAuthnCredentialSchema).delete({ id: passkeyId, userId });
    if (!affected) return false;
    await passkeyRows.dropRecoveryCodesWithoutFactor(manager, userId);
    await bumpRevocationEpoch(manager, userId);
    return true;
  },

  /** The recovery codes go when the user holds no confirmed factor and no passkey any more (a pending enrollment is none). */
  async dropRecoveryCodesWithoutFactor(manager: EntityManager, userId: string): Promise<void> {
    const factors = await manager.getRepository(MfaFactorSchema).countBy({ userId, confirmedAt: Not(IsNull()) });
    const passkeys = await manager.getRepository(WebAuthnCredentialSchema).countBy({ userId });
    if (factors + passkeys === 0) await manager.getRepository(RecoveryCodeSchema).delete({ userId });
  },

  async use(manager: EntityManager, passkeyId: string, counter: number, at: Date): Promise<boolean> {
    const credentials = manager.getRepository(WebAuthnCredentialSchema);
    const { affected } =
      counter === 0
        ? await credentials.update({ id: passkeyId, counter: 0 }, { lastUsedAt: at })
        : await credentials.update({ id: passkeyId, counter: LessThan(counter) }, { counter, lastUsedAt: at });
    return (affected ?? 0) > 0;
  },

  async addChallenge(manager: EntityManager, challenge: WebAuthnChallenge): Promise<void> {
    await manager.getRepository(WebAuthnChallengeSchema).insert({ ...challenge });
  },

  async takeChallenge(manager: EntityManager, challengeHash: string, userId: string, ceremony: WebAuthnCeremony, at: Date): Promise<boolean> {
    const { affected } = await manager.getRepository(WebAuthnChallengeSchema).delete({ challengeHash, userId, ceremony, expiresAt: MoreThan(at) });
    return affected === 1;
  },

  /** Expired sign-in tickets (stored by an earlier version), then expired WebAuthn challenges: read first, deleted by primary key (short locks). */
  async deleteExpired(manager: EntityManager, now: Date, limit: number): Promise<number> {
    const tickets = manager.getRepository(MfaChallengeSchema);
    const old = await tickets.find({ select: { tokenHash: true }, where: { expiresAt: LessThan(now) }, take: limit });
    if (old.length > 0) await tickets.delete({ tokenHash: In(old.map((row) => row.tokenHash)) });
    const left = limit - old.length;
    if (left <= 0) return old.length;
    const challenges = manager.getRepository(WebAuthnChallengeSchema);
    const stale = await challenges.find({ select: { challengeHash: true }, where: { expiresAt: LessThan(now) }, take: left });
    if (stale.length > 0) await challenges.delete({ challengeHash: In(stale.map((row) => row.challengeHash)) });
    return old.length + stale.length;
  },
};

function toPasskey(row: WebAuthnCredentialRecord): Passkey {
  return {
    id: row.id,
    userId: row.userId,
    name: row.name,
    credentialId: row.credentialId,
    publicKey: row.publicKey,
    counter: Number(row.counter),
    transports: row.transports ? row.transports.split(',') : [],
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt ?? null,
  };
}
