import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { AddServiceAccountSecretUseCase } from '../../../../src/application/service-accounts/add-service-account-secret.use-case';
import { CreateServiceAccountUseCase } from '../../../../src/application/service-accounts/create-service-account.use-case';
import { DeleteServiceAccountSecretUseCase } from '../../../../src/application/service-accounts/delete-service-account-secret.use-case';
import { DeleteServiceAccountUseCase } from '../../../../src/application/service-accounts/delete-service-account.use-case';
import {
  GetServiceAccountUseCase,
  ListServiceAccountSecretsUseCase,
  ListServiceAccountsUseCase,
} from '../../../../src/application/service-accounts/read-service-accounts.use-case';
import { ReplaceServiceAccountKeysUseCase } from '../../../../src/application/service-accounts/replace-service-account-keys.use-case';
import { UpdateServiceAccountUseCase } from '../../../../src/application/service-accounts/update-service-account.use-case';
import { Permissions } from '../../../../src/domain/permissions/permission';
import { FakeSecretTokens, sha256Of } from '../../../support/fakes/fake-secret-tokens';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryServiceAccountRepository } from '../../../support/fakes/in-memory-service-account.repository';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { ActorMother } from '../../../support/mothers/actor.mother';
import { ADMIN_ROLE_ID, MEMBER_ROLE_ID, RoleMother } from '../../../support/mothers/role.mother';

const ED25519 = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' };

function world() {
  const clock = new FixedClock();
  const outbox = new InMemoryOutbox();
  const roles = new InMemoryRoleRepository([
    RoleMother.admin(),
    RoleMother.member(),
    { id: 'role-reader', name: 'reader', permissions: [Permissions.usersRead] },
  ]);
  const serviceAccounts = new InMemoryServiceAccountRepository();
  // Every closure runs twice (a deadlock retry): the use cases must be correct then.
  const unitOfWork = new InMemoryUnitOfWork({ users: new InMemoryUserRepository(), outbox, roles, serviceAccounts, retryEveryRun: true });
  const secretTokens = new FakeSecretTokens();
  const deps = {
    auditRecorder: auditRecorderFor({ clock, auditTrail: unitOfWork.audit }).auditRecorder,
    roleRepository: roles,
    serviceAccountRepository: serviceAccounts,
    unitOfWork,
    clock,
    idGenerator: new SequentialIdGenerator(0x71),
    secretTokens,
  };
  return {
    clock, outbox, serviceAccounts, secretTokens, audit: unitOfWork.audit,
    admin: ActorMother.admin(),
    create: new CreateServiceAccountUseCase(deps),
    list: new ListServiceAccountsUseCase(deps),
    get: new GetServiceAccountUseCase(deps),
    update: new UpdateServiceAccountUseCase(deps),
    remove: new DeleteServiceAccountUseCase(deps),
    addSecret: new AddServiceAccountSecretUseCase(deps),
    listSecrets: new ListServiceAccountSecretsUseCase(deps),
    removeSecret: new DeleteServiceAccountSecretUseCase(deps),
    replaceKeys: new ReplaceServiceAccountKeysUseCase(deps),
  };
}

describe('service account use cases', () => {
  it('creates an account holding a role, hands its secret out once and stores only its SHA-256', async () => {
    const w = world();
    const { serviceAccount, clientSecret, version } = await w.create.execute({ actor: w.admin, name: 'reports', role: 'reader', description: 'Nightly report' });
    expect(serviceAccount).toEqual({
      _id: expect.any(String),
      client_id: expect.any(String),
      name: 'reports',
      description: 'Nightly report',
      role: { _id: 'role-reader', name: 'reader', permissions: ['users:read'] },
      disabled: false,
      keys: [],
      created_date: w.clock.now().toISOString(),
      created_by: w.admin.userId,
    });
    expect(version).toBe(1);
    expect(clientSecret).toBe(w.secretTokens.last!.token);
    const [stored] = w.serviceAccounts.all();
    expect(stored!.secrets).toEqual([{ id: expect.any(String), hash: sha256Of(clientSecret), createdAt: w.clock.now() }]);
    expect(w.outbox.events.map((e) => [e.type, e.aggregateId])).toEqual([['ServiceAccountCreated', serviceAccount._id]]);
    const serialised = JSON.stringify(w.outbox.events);
    expect(serialised).not.toContain(clientSecret);
    expect(serialised).not.toContain(sha256Of(clientSecret));
  });

  it('lists by creation with the pagination object, and reads one with its version', async () => {
    const w = world();
    const a = await w.create.execute({ actor: w.admin, name: 'alpha', role: 'member' });
    await w.create.execute({ actor: w.admin, name: 'beta', role: MEMBER_ROLE_ID });
    const listed = await w.list.execute({ actor: w.admin, page: 1, pageSize: 1 });
    expect(listed.service_accounts.map((s) => s.name)).toEqual(['alpha']);
    expect(listed.pagination).toEqual({ page: 1, page_size: 1, page_count: 2, total_document: 2 });
    expect(await w.get.execute({ actor: w.admin, serviceAccountId: a.serviceAccount._id })).toEqual({ serviceAccount: a.serviceAccount, version: 1 });
    await expect(w.get.execute({ actor: w.admin, serviceAccountId: 'nope' })).rejects.toMatchObject({ code: 'NO_SUCH_SERVICE_ACCOUNT' });
  });

  it('needs service-accounts:read to read and service-accounts:write to change', async () => {
    const w = world();
    const reader = ActorMother.withPermissions([Permissions.serviceAccountsRead]);
    await expect(w.create.execute({ actor: reader, name: 'x', role: 'member' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(w.list.execute({ actor: ActorMother.withoutPermissions(), page: 1, pageSize: 10 })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect((await w.list.execute({ actor: reader, page: 1, pageSize: 10 })).service_accounts).toEqual([]);
  });

  it('applies the hand-out rule: nobody gives an account a role holding a permission they lack, nor changes its holder', async () => {
    const w = world();
    const writer = ActorMother.withPermissions([Permissions.serviceAccountsWrite, Permissions.serviceAccountsRead]);
    await expect(w.create.execute({ actor: writer, name: 'sneaky', role: 'admin' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(w.create.execute({ actor: writer, name: 'sneaky', role: 'reader' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    const mine = await w.create.execute({ actor: writer, name: 'plain', role: 'member' });
    await expect(w.update.execute({ actor: writer, serviceAccountId: mine.serviceAccount._id, role: ADMIN_ROLE_ID })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    const strong = await w.create.execute({ actor: w.admin, name: 'strong', role: 'admin' });
    for (const attempt of [
      () => w.update.execute({ actor: writer, serviceAccountId: strong.serviceAccount._id, disabled: true }),
      () => w.remove.execute({ actor: writer, serviceAccountId: strong.serviceAccount._id }),
      () => w.addSecret.execute({ actor: writer, serviceAccountId: strong.serviceAccount._id }),
      () => w.replaceKeys.execute({ actor: writer, serviceAccountId: strong.serviceAccount._id, keys: [ED25519] }),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    }
    await expect(w.create.execute({ actor: w.admin, name: 'ghost', role: 'nope' })).rejects.toMatchObject({ code: 'ROLE_NOT_FOUND' });
  });

  it('updates name, description, role and disabled, recording ServiceAccountChanged with old and new values', async () => {
    const w = world();
    const { serviceAccount } = await w.create.execute({ actor: w.admin, name: 'svc', role: 'member', description: 'old' });
    w.clock.advance(1000);
    const changed = await w.update.execute({
      actor: w.admin, serviceAccountId: serviceAccount._id, expectedVersion: 1, name: 'svc2', description: null, role: 'reader', disabled: true,
    });
    expect(changed.version).toBe(2);
    expect(changed.serviceAccount).toMatchObject({ name: 'svc2', disabled: true, role: { _id: 'role-reader' }, updated_by: w.admin.userId });
    expect(changed.serviceAccount).not.toHaveProperty('description');
    expect(w.outbox.events.at(-1)!.data).toMatchObject({
      changes: { name: 'svc2', description: null, role_id: 'role-reader', disabled: true },
      previous: { name: 'svc', description: 'old', role_id: MEMBER_ROLE_ID, disabled: false },
    });
    const same = await w.update.execute({ actor: w.admin, serviceAccountId: serviceAccount._id, name: 'svc2' });
    expect(same.version).toBe(2);
    await expect(w.update.execute({ actor: w.admin, serviceAccountId: serviceAccount._id, expectedVersion: 1, name: 'x' })).rejects.toMatchObject({
      code: 'SERVICE_ACCOUNT_CHANGED_CONCURRENTLY',
    });
  });

  it('refuses a name taken case-insensitively and a malformed name', async () => {
    const w = world();
    await w.create.execute({ actor: w.admin, name: 'Reports', role: 'member' });
    await expect(w.create.execute({ actor: w.admin, name: 'reports', role: 'member' })).rejects.toMatchObject({ code: 'SERVICE_ACCOUNT_NAME_TAKEN' });
    await expect(w.create.execute({ actor: w.admin, name: '1 bad name', role: 'member' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('rotates with overlap: a second secret (with an expiry), both listed, then the old one deleted; never the last credential', async () => {
    const w = world();
    const { serviceAccount } = await w.create.execute({ actor: w.admin, name: 'rotating', role: 'member' });
    const id = serviceAccount._id;
    const [first] = (await w.listSecrets.execute({ actor: w.admin, serviceAccountId: id })).secrets;
    await expect(w.removeSecret.execute({ actor: w.admin, serviceAccountId: id, secretId: first!._id })).rejects.toMatchObject({ code: 'LAST_CREDENTIAL' });
    const added = await w.addSecret.execute({ actor: w.admin, serviceAccountId: id, expiresIn: 3600 });
    expect(added.secret).toEqual({ _id: expect.any(String), created_date: w.clock.now().toISOString(), expires_date: new Date(w.clock.now().getTime() + 3_600_000).toISOString() });
    expect(added.clientSecret).toBe(w.secretTokens.last!.token);
    const listed = (await w.listSecrets.execute({ actor: w.admin, serviceAccountId: id })).secrets;
    expect(listed.map((s) => s._id)).toEqual([first!._id, added.secret._id]);
    expect(JSON.stringify(listed)).not.toMatch(/hash|secret"/);
    await w.removeSecret.execute({ actor: w.admin, serviceAccountId: id, secretId: first!._id });
    expect((await w.listSecrets.execute({ actor: w.admin, serviceAccountId: id })).secrets.map((s) => s._id)).toEqual([added.secret._id]);
    await expect(w.removeSecret.execute({ actor: w.admin, serviceAccountId: id, secretId: 'nope' })).rejects.toMatchObject({ code: 'NO_SUCH_SERVICE_ACCOUNT_SECRET' });
    expect(w.outbox.events.map((e) => e.type)).toEqual(['ServiceAccountCreated', 'ServiceAccountSecretAdded', 'ServiceAccountSecretRemoved']);
    expect(JSON.stringify(w.outbox.events)).not.toContain(added.clientSecret);
  });

  it('holds at most 5 secrets', async () => {
    const w = world();
    const { serviceAccount } = await w.create.execute({ actor: w.admin, name: 'many', role: 'member' });
    for (let i = 0; i < 4; i++) await w.addSecret.execute({ actor: w.admin, serviceAccountId: serviceAccount._id });
    await expect(w.addSecret.execute({ actor: w.admin, serviceAccountId: serviceAccount._id })).rejects.toMatchObject({ code: 'TOO_MANY_SECRETS' });
  });

  it('replaces the public keys with a checked JWK set; with keys, the last secret may go', async () => {
    const w = world();
    const { serviceAccount } = await w.create.execute({ actor: w.admin, name: 'keyed', role: 'member' });
    const id = serviceAccount._id;
    const keyed = await w.replaceKeys.execute({ actor: w.admin, serviceAccountId: id, keys: [ED25519] });
    expect(keyed.serviceAccount.keys).toEqual([ED25519]);
    expect(w.outbox.events.at(-1)).toMatchObject({ type: 'ServiceAccountKeysChanged', data: { kids: ['k1'], previous_kids: [] } });
    const [secret] = (await w.listSecrets.execute({ actor: w.admin, serviceAccountId: id })).secrets;
    await w.removeSecret.execute({ actor: w.admin, serviceAccountId: id, secretId: secret!._id });
    await expect(w.replaceKeys.execute({ actor: w.admin, serviceAccountId: id, keys: [] })).rejects.toMatchObject({ code: 'LAST_CREDENTIAL' });
    for (const bad of [
      [{ ...ED25519, d: 'private' }],
      [{ ...ED25519, kid: undefined }],
      [{ kty: 'oct', k: 'c2VjcmV0', kid: 'h' }],
      [{ kty: 'RSA', n: 'AQAB'.repeat(40), e: 'AQAB', kid: 'small' }],
      [ED25519, { ...ED25519 }],
      'not a list',
    ]) {
      await expect(w.replaceKeys.execute({ actor: w.admin, serviceAccountId: id, keys: bad })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
  });

  it('deletes an account, recording ServiceAccountDeleted', async () => {
    const w = world();
    const { serviceAccount } = await w.create.execute({ actor: w.admin, name: 'gone', role: 'member' });
    await w.remove.execute({ actor: w.admin, serviceAccountId: serviceAccount._id, expectedVersion: 1 });
    expect(w.serviceAccounts.all()).toEqual([]);
    expect(w.outbox.events.at(-1)).toMatchObject({ type: 'ServiceAccountDeleted', data: { service_account_id: serviceAccount._id, name: 'gone' } });
    await expect(w.remove.execute({ actor: w.admin, serviceAccountId: serviceAccount._id })).rejects.toMatchObject({ code: 'NO_SUCH_SERVICE_ACCOUNT' });
  });
});
