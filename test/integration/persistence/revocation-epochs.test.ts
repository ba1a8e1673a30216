import {
  readRevocationSnapshot,
  REVOCATION_SHARDS,
  revocationShardOf,
} from '../../../src/infrastructure/persistence/typeorm/revocation-epochs';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { joinedUser } from '../../contract/contract-kit';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

const ids = new UuidV7IdGenerator();

/**
 * The revocation signal's side in the database (#26): every change that can end or narrow a subject's access
 * moves its shard's epoch in the change's own transaction, and one statement reads every shard and the roles'
 * revision, on every database.
 */
describe.each(ALL_TARGETS)('revocation epochs on $name', (target) => {
  const db = migratedDatabase(target);
  const epochOf = async (subject: string) => (await readRevocationSnapshot(db.dataSource.manager)).epochs[revocationShardOf(subject)]!;

  it('reads every shard and the roles revision in one snapshot', async () => {
    const snapshot = await readRevocationSnapshot(db.dataSource.manager);
    expect(snapshot.epochs).toHaveLength(REVOCATION_SHARDS);
    expect(snapshot.rolesRevision).toBeGreaterThan(0);
  });

  it('moves the user\'s epoch with a sign-out (token version), an update and an erasure, each committed with the change', async () => {
    const users = db.adapters.users();
    const user = joinedUser(`rev-${ids.next().slice(-8)}`, `rev-${ids.next()}@example.com`);
    await users.add(user);
    const before = await epochOf(user.id);
    await users.incrementTokenVersion(user.id);
    expect(await epochOf(user.id)).toBe(before + 1);
    const stored = (await users.findById(user.id))!;
    await users.update(stored);
    expect(await epochOf(user.id)).toBe(before + 2);
  });

  it('moves the user\'s epoch with every change of its second factors, not with a code\'s use (#24)', async () => {
    const users = db.adapters.users();
    const user = joinedUser(`mfa-${ids.next().slice(-8)}`, `mfa-${ids.next()}@example.com`);
    await users.add(user);
    const unitOfWork = db.adapters.unitOfWork();
    const factor = { id: ids.next(), userId: user.id, type: 'totp' as const, sealedSecret: 'v1.a.b.c', createdAt: new Date(), confirmedAt: null, lastUsedStep: null };
    const before = await epochOf(user.id);
    await unitOfWork.run((scope) => scope.mfa.savePending({ ...factor, id: ids.next() }));
    expect(await epochOf(user.id)).toBe(before);
    // Replacing a pending enrollment (started again) narrows no access either.
    await unitOfWork.run((scope) => scope.mfa.savePending(factor));
    expect(await epochOf(user.id)).toBe(before);
    await unitOfWork.run((scope) => scope.mfa.confirm(user.id, factor.id, new Date()));
    expect(await epochOf(user.id)).toBe(before + 1);
    await unitOfWork.run((scope) => scope.mfa.replaceRecoveryCodes(user.id, ['a'.repeat(64)], new Date()));
    expect(await epochOf(user.id)).toBe(before + 2);
    await unitOfWork.run((scope) => scope.mfa.useTimeStep(factor.id, 1));
    expect(await epochOf(user.id)).toBe(before + 2);
    await unitOfWork.run((scope) => scope.mfa.removeFactors(user.id));
    expect(await epochOf(user.id)).toBe(before + 3);
  });

  it('leaves the epoch where it was when the change rolls back', async () => {
    const users = db.adapters.users();
    const user = joinedUser(`rb-${ids.next().slice(-8)}`, `rb-${ids.next()}@example.com`);
    await users.add(user);
    const before = await epochOf(user.id);
    await expect(
      db.adapters.unitOfWork().run(async (scope) => {
        await scope.users.incrementTokenVersion(user.id);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await epochOf(user.id)).toBe(before);
    expect((await users.findById(user.id))!.tokenVersion).toBe(user.tokenVersion);
  });

  it('spreads subjects over the shards', () => {
    const shards = new Set(Array.from({ length: 1000 }, () => revocationShardOf(ids.next())));
    expect(shards.size).toBe(REVOCATION_SHARDS);
  });
});
