import type { ServiceAccountCredentialStore, ServiceAccountRepository } from '../../src/application/ports/service-account-repository.port';
import type { AuditLog } from '../../src/application/ports/audit-trail.port';
import type { RoleRepository } from '../../src/application/ports/role-repository.port';
import type { AuditEntry } from '../../src/domain/audit/audit-entry';
import type { TransactionScope, UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import { RoleEntity } from '../../src/domain/roles/role.entity';
import type { PublicJwk } from '../../src/domain/service-accounts/public-jwk-set';
import { ServiceAccount } from '../../src/domain/service-accounts/service-account';
import { ServiceAccountChangedConcurrentlyError, ServiceAccountNameTakenError } from '../../src/domain/service-accounts/service-account.errors';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { type ContractOptions, contractIt, type MakeStores, newId, tokenHash, unique } from './contract-kit';

const AT = new Date('2026-02-01T00:00:00.007Z');

/** A token grant's audit entry, its request id the assertion's key (how the test finds it again). */
function grantEntry(key: string): AuditEntry {
  return {
    id: newId(),
    occurredAt: AT.getTime(),
    action: 'service_account.token_granted',
    outcome: 'success',
    code: 'private_key_jwt',
    actor: { type: 'service_account', id: 'sa-contract', name: 'contract-client' },
    target: { type: 'service_account', id: 'sa-contract', snapshot: 'contract-client' },
    source: { address: '203.0.113.9', userAgent: 'contract' },
    requestId: key.slice(0, 64),
    changes: [{ field: 'scope', before: null, after: ['users:read'] }],
  };
}

async function grantEntriesOf(log: AuditLog, key: string): Promise<AuditEntry[]> {
  return (await log.page({ requestId: key.slice(0, 64) }, 100)).entries;
}
const LATER = new Date('2026-02-02T00:00:00.009Z');
const by = (now = AT) => ({ by: newId(), now, newId });
const KEY: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' };

/**
 * Lower-case letters only: every database orders and compares them as the fake does. Each hex digit of the unique
 * part becomes a letter (0-9 → g-p) rather than being dropped: dropped, two names collided now and then.
 */
const accountName = (prefix: string) => `${prefix}${unique('').replace(/[^a-f0-9]/g, '').replace(/[0-9]/g, (d) => 'ghijklmnop'[Number(d)]!)}`;

/**
 * What ServiceAccountRepository (reads), ServiceAccountStore (TransactionScope.serviceAccounts) and
 * ServiceAccountCredentialStore promise (src/application/ports/service-account-repository.port.ts, #21).
 */
export function describeServiceAccountStoreContract(
  name: string,
  makeSubject: MakeStores<'unitOfWork' | 'serviceAccounts' | 'roles' | 'auditLog'>,
  options: ContractOptions = {},
): void {
  const test = contractIt(options);

  describe(`${name} honours the ServiceAccountRepository, ServiceAccountStore and ServiceAccountCredentialStore contracts`, () => {
    let unitOfWork: UnitOfWork;
    let accounts: ServiceAccountRepository & ServiceAccountCredentialStore;
    let roles: RoleRepository;
    let auditLog: AuditLog;

    beforeEach(async () => {
      ({ unitOfWork, serviceAccounts: accounts, roles, auditLog } = await makeSubject());
    });

    const inUnit = <T>(work: (scope: TransactionScope) => Promise<T>) => unitOfWork.run(work);
    const create = (named = accountName('svc'), description?: string) =>
      inUnit(async (scope) => {
        const account = ServiceAccount.create({
          id: newId(),
          clientId: newId(),
          name: named,
          ...(description !== undefined ? { description } : {}),
          roleId: SEEDED_ROLES.member,
          secret: { id: newId(), hash: tokenHash() },
          ...by(),
        });
        await scope.serviceAccounts.insert(account);
        return account.snapshot().state;
      });
    const change = (id: string, edit: (account: ServiceAccount) => void) =>
      inUnit(async (scope) => {
        const account = (await scope.serviceAccounts.findForChange(id))!;
        edit(account);
        await scope.serviceAccounts.update(account);
        return account.snapshot().state;
      });

    test('reads a created account back whole: by id, by client id, in the list', async () => {
      const created = await create(accountName('whole'), 'Reads the user list');
      const read = await accounts.findById(created.id);
      expect(read).toEqual(created);
      expect(read).toMatchObject({ description: 'Reads the user list', disabled: false, keys: [], version: 1, createdAt: AT });
      expect(await accounts.findByClientId(created.clientId)).toEqual(created);
      expect((await accounts.list({ offset: 0, limit: 10 })).items).toEqual([created]);
      expect(await accounts.findById(newId())).toBeNull();
      expect(await accounts.findByClientId(newId())).toBeNull();
      // MariaDB and MySQL compare their keys padded: the client id must be the one asked for, byte for byte.
      expect(await accounts.findByClientId(`${created.clientId} `)).toBeNull();
    });

    test('refuses a name another account has, compared case-insensitively, and commits nothing', async () => {
      const named = accountName('taken');
      await create(named);
      await expect(create(named.toUpperCase())).rejects.toBeInstanceOf(ServiceAccountNameTakenError);
      expect((await accounts.list({ offset: 0, limit: 10 })).total).toBe(1);
    });

    test('pages by id (creation order) with the total', async () => {
      const made = [await create(), await create(), await create()];
      const page = await accounts.list({ offset: 1, limit: 1 });
      expect(page).toEqual({ items: [made[1]], total: 3 });
      expect(await accounts.list({ offset: 5, limit: 2 })).toEqual({ items: [], total: 3 });
    });

    test('writes a change of fields, secrets and keys, moving the version on', async () => {
      const created = await create(accountName('changed'), 'before');
      const added = { id: newId(), hash: tokenHash(), expiresAt: new Date('2026-03-01T00:00:00.001Z') };
      const changed = await change(created.id, (account) => {
        account.change({ name: accountName('renamed'), description: null, roleId: SEEDED_ROLES.admin, disabled: true, ...by(LATER) });
        account.addSecret(added, by(LATER));
        account.removeSecret(created.secrets[0]!.id, by(LATER));
        account.replaceKeys([KEY], by(LATER));
      });
      const read = await accounts.findById(created.id);
      expect(read).toEqual(changed);
      expect(read).not.toHaveProperty('description');
      expect(read).toMatchObject({ roleId: SEEDED_ROLES.admin, disabled: true, keys: [KEY], updatedAt: LATER });
      // Disabled at LATER: its tokens of LATER's second and before are not its, even once it is enabled again.
      expect(read!.tokensValidFrom).toBe(Math.floor(LATER.getTime() / 1000) + 1);
      const enabled = await change(created.id, (account) => account.change({ disabled: false, ...by(LATER) }));
      expect(await accounts.findById(created.id)).toEqual(enabled);
      expect(enabled).toMatchObject({ disabled: false, tokensValidFrom: Math.floor(LATER.getTime() / 1000) + 1 });
      expect(read!.secrets).toEqual([{ id: added.id, hash: added.hash, createdAt: LATER, expiresAt: added.expiresAt }]);
      expect(read!.version).toBe(created.version + 4);
      expect(created).not.toHaveProperty('tokensValidFrom');
    });

    test('keeps a secret’s last use across an update of the account', async () => {
      const created = await create();
      await accounts.markSecretUsed(created.secrets[0]!.id, LATER);
      expect((await accounts.findById(created.id))!.secrets[0]!.lastUsedAt).toEqual(LATER);
      await change(created.id, (account) => account.change({ description: 'after', ...by() }));
      expect((await accounts.findById(created.id))!.secrets[0]!.lastUsedAt).toEqual(LATER);
    });

    test('refuses a write from a stale read (update and delete), and commits nothing of it', async () => {
      const created = await create();
      const stale = await inUnit(async (scope) => (await scope.serviceAccounts.findForChange(created.id))!);
      await change(created.id, (account) => account.change({ disabled: true, ...by() }));
      stale.change({ description: 'lost', ...by() });
      await expect(inUnit((scope) => scope.serviceAccounts.update(stale))).rejects.toBeInstanceOf(ServiceAccountChangedConcurrentlyError);
      await expect(inUnit((scope) => scope.serviceAccounts.delete(stale))).rejects.toBeInstanceOf(ServiceAccountChangedConcurrentlyError);
      expect(await accounts.findById(created.id)).toMatchObject({ disabled: true, version: 2 });
      expect(await accounts.findById(created.id)).not.toHaveProperty('description');
    });

    test('deletes an account with its secrets', async () => {
      const created = await create();
      const kept = await create();
      await inUnit(async (scope) => {
        const account = (await scope.serviceAccounts.findForChange(created.id))!;
        account.delete(by());
        await scope.serviceAccounts.delete(account);
      });
      expect(await accounts.findById(created.id)).toBeNull();
      expect(await accounts.findByClientId(created.clientId)).toBeNull();
      expect(await accounts.findById(kept.id)).toEqual(kept);
    });

    test('rolls a unit of work back whole: nothing of a failed run is stored', async () => {
      const named = accountName('rolled');
      await expect(
        inUnit(async (scope) => {
          await scope.serviceAccounts.insert(
            ServiceAccount.create({ id: newId(), clientId: newId(), name: named, roleId: SEEDED_ROLES.member, secret: { id: newId(), hash: tokenHash() }, ...by() }),
          );
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect((await accounts.list({ offset: 0, limit: 10 })).total).toBe(0);
    });

    test('keeps a role an account holds: deleting it is RoleInUseError, and nothing is deleted', async () => {
      const roleId = await inUnit(async (scope) => {
        const role = RoleEntity.create({ id: newId(), name: accountName('held'), permissions: [], ...by() });
        await scope.roles.insert(role);
        return role.id;
      });
      const account = await inUnit(async (scope) => {
        const created = ServiceAccount.create({
          id: newId(), clientId: newId(), name: accountName('holder'), roleId, secret: { id: newId(), hash: tokenHash() }, ...by(),
        });
        await scope.serviceAccounts.insert(created);
        return created.id;
      });
      const remove = () =>
        inUnit(async (scope) => {
          const role = (await scope.roles.findForChange(roleId))!;
          role.delete(by());
          await scope.roles.delete(role, SEEDED_ROLES.member);
        });
      await expect(remove()).rejects.toMatchObject({ code: 'ROLE_IN_USE' });
      expect(await roles.findById(roleId)).not.toBeNull();
      await inUnit(async (scope) => {
        const held = (await scope.serviceAccounts.findForChange(account))!;
        held.delete(by());
        await scope.serviceAccounts.delete(held);
      });
      await remove();
      expect(await roles.findById(roleId)).toBeNull();
    });

    test('remembers a client assertion until it expires: accepted once, refused again, accepted after expiry', async () => {
      const key = tokenHash();
      const expires = new Date(AT.getTime() + 60_000);
      expect(await accounts.rememberAssertion(key, expires, AT)).toBe(true);
      expect(await accounts.rememberAssertion(key, expires, new Date(AT.getTime() + 59_000))).toBe(false);
      expect(await accounts.rememberAssertion(tokenHash(), expires, AT)).toBe(true);
      const after = new Date(expires.getTime() + 1);
      expect(await accounts.rememberAssertion(key, new Date(after.getTime() + 60_000), after)).toBe(true);
      expect(await accounts.rememberAssertion(key, new Date(after.getTime() + 60_000), after)).toBe(false);
    });

    test('of concurrent callers remembering one assertion, exactly one is told true', async () => {
      const key = tokenHash();
      const expires = new Date(AT.getTime() + 60_000);
      const answers = await Promise.all(Array.from({ length: 6 }, () => accounts.rememberAssertion(key, expires, AT)));
      expect(answers.filter(Boolean)).toHaveLength(1);
    });

    test("commits a grant's audit entries with its assertion: written when it is remembered, never for a replay", async () => {
      const key = tokenHash();
      const expires = new Date(AT.getTime() + 60_000);
      const granted = grantEntry(key);
      expect(await accounts.rememberAssertion(key, expires, AT, [granted])).toBe(true);
      expect(await accounts.rememberAssertion(key, expires, AT, [grantEntry(key)])).toBe(false);
      // Remembered with entries, refused without them, as without: one memory of keys.
      expect(await accounts.rememberAssertion(key, expires, AT)).toBe(false);
      const after = new Date(expires.getTime() + 1);
      const renewed = grantEntry(key);
      expect(await accounts.rememberAssertion(key, new Date(after.getTime() + 60_000), after, [renewed])).toBe(true);
      expect((await grantEntriesOf(auditLog, key)).map((e) => e.id).sort()).toEqual([granted.id, renewed.id].sort());
    });

    test("in a burst of grants, fresh and replayed at once, each fresh one's entry is written and no replay's", async () => {
      const expires = new Date(AT.getTime() + 60_000);
      const replayed = [tokenHash(), tokenHash()];
      for (const key of replayed) expect(await accounts.rememberAssertion(key, expires, AT)).toBe(true);
      const fresh = Array.from({ length: 8 }, () => tokenHash());
      const burst = [...fresh.slice(0, 4), replayed[0]!, ...fresh.slice(4), replayed[1]!];
      const answers = await Promise.all(burst.map((key) => accounts.rememberAssertion(key, expires, AT, [grantEntry(key)])));
      expect(answers).toEqual(burst.map((key) => !replayed.includes(key)));
      for (const key of burst) expect(await grantEntriesOf(auditLog, key)).toHaveLength(replayed.includes(key) ? 0 : 1);
    });

    test('in a burst of fresh and replayed assertions at once, each fresh one is told true and each replay false', async () => {
      const expires = new Date(AT.getTime() + 60_000);
      const replayed = [tokenHash(), tokenHash()];
      for (const key of replayed) expect(await accounts.rememberAssertion(key, expires, AT)).toBe(true);
      const fresh = Array.from({ length: 8 }, () => tokenHash());
      const burst = [...fresh.slice(0, 4), replayed[0]!, ...fresh.slice(4), replayed[1]!];
      const answers = await Promise.all(burst.map((key) => accounts.rememberAssertion(key, expires, AT)));
      expect(answers).toEqual(burst.map((key) => !replayed.includes(key)));
      // Every fresh one is remembered now: a second burst of them is refused whole.
      expect(await Promise.all(fresh.map((key) => accounts.rememberAssertion(key, expires, AT)))).toEqual(fresh.map(() => false));
    });
  });
}
