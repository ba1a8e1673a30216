import type { Role } from '../../../src/domain/roles/role';
import { RoleNotFoundError } from '../../../src/domain/roles/role-not-found.error';
import { ServiceAccount } from '../../../src/domain/service-accounts/service-account';
import { Email } from '../../../src/domain/users/email';
import { User } from '../../../src/domain/users/user';
import { Username } from '../../../src/domain/users/username';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { isMysqlFamily } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { foreignKeyViolationOn, uniqueViolationOn } from '../../../src/infrastructure/persistence/typeorm/database-errors';
import { UserSchema } from '../../../src/infrastructure/persistence/typeorm/records';
import { toRecord } from '../../../src/infrastructure/persistence/typeorm/typeorm-user.repository';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

const ids = new UuidV7IdGenerator();
const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
/** A role id no row has: a role deleted since the write read it. */
const gone = (): Role => ({ id: ids.next(), name: 'gone', permissions: [] });

const joined = (role = member) => {
  const id = ids.next();
  return User.createJoined({
    id,
    email: Email.parse(`fk-${id}@example.com`),
    name: 'Foreign Key',
    username: Username.parse(`fk-${id.slice(-12)}`),
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    role,
    now: new Date('2026-02-01T00:00:00.007Z'),
  });
};

const refusal = async (write: () => Promise<unknown>): Promise<unknown> => {
  try {
    await write();
  } catch (error) {
    return error;
  }
  throw new Error('the write was not refused');
};

/** The foreign-key refusals (#22) as each database and driver reports them, and what the user repository makes of them. */
describe.each(ALL_TARGETS)('foreign-key refusals on $name', (target) => {
  const db = migratedDatabase(target);
  const named = (constraint: string) => (isMysqlFamily(db.dataSource) ? constraint : '');

  it('recognises a row naming a parent that is not there (a user given a role deleted meanwhile)', async () => {
    const error = await refusal(() => db.dataSource.getRepository(UserSchema).insert(toRecord(joined(gone()))));
    expect(foreignKeyViolationOn(error)).toEqual({
      kind: isMysqlFamily(db.dataSource) ? 'missing-parent' : 'unknown',
      constraint: named('fk_users_role'),
    });
    expect(uniqueViolationOn(error)).toBeNull();
  });

  it('recognises a parent deleted while rows still name it (a role its users hold)', async () => {
    await db.adapters.users().add(joined());
    const error = await refusal(() => db.dataSource.query('DELETE FROM roles WHERE id = ?', [SEEDED_ROLES.member]));
    expect(foreignKeyViolationOn(error)).toEqual({
      kind: isMysqlFamily(db.dataSource) ? 'still-referenced' : 'unknown',
      constraint: named('fk_users_role'),
    });
    expect(uniqueViolationOn(error)).toBeNull();
  });

  it('does not take a unique violation for a foreign-key one', async () => {
    const user = joined();
    await db.adapters.users().add(user);
    const error = await refusal(() => db.dataSource.getRepository(UserSchema).insert({ ...toRecord(user), id: ids.next() }));
    expect(uniqueViolationOn(error)).not.toBeNull();
    expect(foreignKeyViolationOn(error)).toBeNull();
  });

  it('answers RoleNotFoundError, not the driver error, when a user is added or moved to a role that is gone', async () => {
    const invited = joined(gone());
    await expect(db.adapters.users().add(invited)).rejects.toBeInstanceOf(RoleNotFoundError);
    await expect(db.adapters.unitOfWork().run(({ users }) => users.add(joined(gone())))).rejects.toBeInstanceOf(RoleNotFoundError);

    const user = joined();
    await db.adapters.users().add(user);
    const by = { by: user.id, now: new Date('2026-02-02T00:00:00.007Z'), newId: () => ids.next() };
    const role = gone();
    const moved = await refusal(() =>
      db.adapters.unitOfWork().run(async ({ users }) => {
        const current = (await users.findById(user.id))!;
        current.update({ role, previousRole: member, ...by });
        await users.update(current);
      }),
    );
    expect(moved).toBeInstanceOf(RoleNotFoundError);
    expect(moved).toMatchObject({ code: 'ROLE_NOT_FOUND', details: { role: role.id } });
    // Nothing moved: the user still holds its role.
    expect((await db.adapters.users().findById(user.id))!.roleId).toBe(SEEDED_ROLES.member);
  });

  it('answers RoleNotFoundError, not the driver error, when a service account is created or moved to a role that is gone', async () => {
    const by = () => ({ by: SEEDED_ROLES.admin, now: new Date('2026-02-02T00:00:00.007Z'), newId: () => ids.next() });
    const account = (roleId: string) =>
      ServiceAccount.create({ id: ids.next(), clientId: ids.next(), name: `fk-${ids.next().slice(-12)}`, roleId, secret: { id: ids.next(), hash: 'a'.repeat(64) }, ...by() });
    const role = gone();
    const created = await refusal(() => db.adapters.unitOfWork().run(({ serviceAccounts }) => serviceAccounts.insert(account(role.id))));
    expect(created).toBeInstanceOf(RoleNotFoundError);
    expect(created).toMatchObject({ code: 'ROLE_NOT_FOUND', details: { role: role.id } });

    const held = account(SEEDED_ROLES.member);
    await db.adapters.unitOfWork().run(({ serviceAccounts }) => serviceAccounts.insert(held));
    const moved = await refusal(() =>
      db.adapters.unitOfWork().run(async ({ serviceAccounts }) => {
        const current = (await serviceAccounts.findForChange(held.id))!;
        current.change({ roleId: role.id, ...by() });
        await serviceAccounts.update(current);
      }),
    );
    expect(moved).toBeInstanceOf(RoleNotFoundError);
    const kept = await db.adapters.unitOfWork().run(({ serviceAccounts }) => serviceAccounts.findForChange(held.id));
    expect(kept!.roleId).toBe(SEEDED_ROLES.member);
  });
});
