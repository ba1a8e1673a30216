import type { UserListQuery } from '../../../../src/application/users/list-users.use-case';
import { Permissions } from '../../../../src/domain/permissions/permission';
import { PermissionDeniedError } from '../../../../src/domain/permissions/permission-denied.error';
import { ValidationError } from '../../../../src/domain/shared/domain-error';
import { ActorMother } from '../../../support/mothers/actor.mother';
import { RoleMother } from '../../../support/mothers/role.mother';
import { listUsersOverFakes } from './list-users.fixture';
import { UserMother } from '../../../support/mothers/user.mother';

const reader = ActorMother.withPermissions([Permissions.usersRead]);

function setup() {
  const { users, listUsers, ids } = listUsersOverFakes();
  const ada = UserMother.joined({ id: ids.next(), name: 'Ada Lovelace', username: 'ada.l', email: 'Ada@Example.com', role: RoleMother.admin() });
  const bob = UserMother.pending({ id: ids.next(), email: 'bob_smith@example.org' });
  const cy = UserMother.deactivated({ id: ids.next(), name: 'Çy Ünal', username: 'cy', email: 'cy@example.com' });
  const dee = UserMother.joined({ id: ids.next(), name: 'Dee Adams', username: 'dee', email: 'dee@example.com' });
  users.seed(ada, bob, cy, dee);
  const list = async (filter: UserListQuery, page = 1, pageSize = 10) => {
    const result = await listUsers.execute({ actor: reader, page, pageSize, filter });
    return { ids: result.users.map((u) => u._id), total: result.pagination.total_document, pagination: result.pagination };
  };
  return { users, ids, listUsers, list, ada, bob, cy, dee };
}

describe('ListUsersUseCase filters', () => {
  it('finds users by role name or role _id alike, showing their role', async () => {
    const { listUsers, list, ada, bob, cy, dee } = setup();

    expect(await list({ role: 'admin' })).toMatchObject({ ids: [ada.id], total: 1 });
    expect(await list({ role: RoleMother.admin().id })).toMatchObject({ ids: [ada.id], total: 1 });
    expect(await list({ role: 'member' })).toMatchObject({ ids: [bob.id, cy.id, dee.id], total: 3 });
    const [view] = (await listUsers.execute({ actor: reader, page: 1, pageSize: 10, filter: { role: 'admin' } })).users;
    expect(view?.role.name).toBe('admin');
  });

  it('refuses a role that names no role with ROLE_NOT_FOUND, rather than an empty page', async () => {
    const { list } = setup();

    await expect(list({ role: 'Admin' })).rejects.toMatchObject({ code: 'ROLE_NOT_FOUND' });
    await expect(list({ role: 'no-such-role' })).rejects.toMatchObject({ code: 'ROLE_NOT_FOUND' });
  });

  it('finds users by status, and refuses a status that is not one, naming the field', async () => {
    const { list, ada, bob, cy, dee } = setup();

    expect(await list({ status: 'active' })).toMatchObject({ ids: [ada.id, dee.id], total: 2 });
    expect(await list({ status: 'pending' })).toMatchObject({ ids: [bob.id], total: 1 });
    expect(await list({ status: 'deactivated' })).toMatchObject({ ids: [cy.id], total: 1 });
    for (const status of ['deleted', 'ACTIVE', 'joined']) {
      const failure = list({ status });
      await expect(failure).rejects.toBeInstanceOf(ValidationError);
      await expect(failure).rejects.toMatchObject({ problems: [{ field: 'status', message: 'must be one of pending, active, deactivated' }] });
    }
  });

  it('finds a user by e-mail in any case and with surrounding blanks, and refuses what is no e-mail address', async () => {
    const { list, ada } = setup();

    expect(await list({ email: 'ADA@example.COM' })).toMatchObject({ ids: [ada.id], total: 1 });
    expect(await list({ email: ' ada@example.com ' })).toMatchObject({ ids: [ada.id], total: 1 });
    expect(await list({ email: 'ada@example.co' })).toMatchObject({ ids: [], total: 0 });
    await expect(list({ email: 'ada' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', problems: [{ field: 'email' }] });
  });

  it('finds users whose name, username or e-mail starts with q, in any case, accents kept, wildcards literal', async () => {
    const { list, ada, bob, cy, dee } = setup();

    expect(await list({ q: 'ADA' })).toMatchObject({ ids: [ada.id], total: 1 });
    expect(await list({ q: 'dee ad' })).toMatchObject({ ids: [dee.id], total: 1 });
    expect(await list({ q: 'çY ün' })).toMatchObject({ ids: [cy.id], total: 1 });
    expect(await list({ q: 'cy ün' })).toMatchObject({ ids: [], total: 0 });
    expect(await list({ q: 'bob_' })).toMatchObject({ ids: [bob.id], total: 1 });
    expect(await list({ q: 'b%' })).toMatchObject({ ids: [], total: 0 });
    // A prefix only: "adams" is inside Dee's name, not at its start.
    expect(await list({ q: 'adams' })).toMatchObject({ ids: [], total: 0 });
    expect(await list({ q: '  dee  ' })).toMatchObject({ ids: [dee.id], total: 1 });
  });

  it('finds a user stored composed (NFC) by e-mail and by q spelled with a decomposed accent (issue #22)', async () => {
    const { users, ids, list } = setup();
    const jose = UserMother.joined({ id: ids.next(), name: 'Jos\u00e9 Su\u00e1rez', username: 'jose', email: 'jos\u00e9@example.com' });
    users.seed(jose);

    expect(await list({ email: 'JOSE\u0301@example.com' })).toMatchObject({ ids: [jose.id], total: 1 });
    expect(await list({ q: 'jose\u0301@' })).toMatchObject({ ids: [jose.id], total: 1 });
    expect(await list({ q: 'Jose\u0301 Sua\u0301' })).toMatchObject({ ids: [jose.id], total: 1 });
  });

  it('finds a user of an internationalised domain by e-mail and by q with the domain in any spelling', async () => {
    const { users, ids, list } = setup();
    const ana = UserMother.joined({ id: ids.next(), name: 'Ana', username: 'ana', email: 'ana@b\u00fccher.de' });
    users.seed(ana);

    for (const spelling of ['ana@xn--bcher-kva.de', 'ANA@B\u00dcCHER.DE', 'ana@bu\u0308cher.de']) {
      expect({ spelling, ...(await list({ email: spelling })) }).toMatchObject({ spelling, ids: [ana.id], total: 1 });
      expect({ spelling, ...(await list({ q: spelling })) }).toMatchObject({ spelling, ids: [ana.id], total: 1 });
    }
    // Full-width letters in the domain: the same mailbox.
    expect(await list({ q: 'ana@\uff42\u00fccher.de' })).toMatchObject({ ids: [ana.id], total: 1 });
    expect(await list({ q: 'ana@xn--bch' })).toMatchObject({ ids: [ana.id], total: 1 });
  });

  it('refuses a blank q, naming the field', async () => {
    const { list } = setup();

    await expect(list({ q: '   ' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', problems: [{ field: 'q', message: 'must not be blank' }] });
  });

  it('names every bad filter at once', async () => {
    const { list } = setup();

    await expect(list({ status: 'gone', email: 'x', q: ' ' })).rejects.toMatchObject({
      problems: [{ field: 'status' }, { field: 'email' }, { field: 'q' }],
    });
  });

  it('combines filters with AND, and pages the match with its own total', async () => {
    const { list, ada, dee } = setup();

    expect(await list({ role: 'member', status: 'active' })).toMatchObject({ ids: [dee.id], total: 1 });
    expect(await list({ role: 'admin', status: 'active', q: 'ada', email: 'ada@example.com' })).toMatchObject({ ids: [ada.id], total: 1 });
    expect(await list({ role: 'admin', q: 'dee' })).toMatchObject({ ids: [], total: 0 });
    expect((await list({ status: 'active' }, 2, 1)).pagination).toEqual({ page: 2, page_size: 1, page_count: 2, total_document: 2 });
    expect(await list({ status: 'active' }, 2, 1)).toMatchObject({ ids: [dee.id] });
  });

  it('checks the permission before looking at any filter', async () => {
    const { listUsers } = setup();

    await expect(
      listUsers.execute({ actor: ActorMother.withoutPermissions(), page: 1, pageSize: 10, filter: { role: 'nope', status: 'bad' } }),
    ).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});
