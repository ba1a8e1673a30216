import { Email } from '../../../src/domain/users/email';
import { nameSearchKey } from '../../../src/domain/users/display-name';
import { User } from '../../../src/domain/users/user';
import { Username } from '../../../src/domain/users/username';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { UserAdministration1764300000000 } from '../../../src/infrastructure/persistence/migrations/1764300000000-user-administration';
import { DropRoleIdIndex1765900000000 } from '../../../src/infrastructure/persistence/migrations/1765900000000-drop-role-id-index';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

const ids = new UuidV7IdGenerator();
const newId = () => ids.next();
const member = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

function joined(username: string, name = 'İstanbul Zoë'): User {
  return User.createJoined({
    id: newId(),
    email: Email.parse(`${username}@Example.com`),
    name,
    username: Username.parse(username),
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    role: member,
    now: new Date('2026-02-01T00:00:00.007Z'),
  });
}

type Row = Record<string, unknown>;

describe.each(ALL_TARGETS)('user administration persistence on $name', (target) => {
  const db = migratedDatabase(target);

  const row = async (id: string): Promise<Row> => ((await db.dataSource.query('SELECT * FROM users WHERE id = ?', [id])) as Row[])[0]!;

  it('the migration gives existing users their status, version 1 and name key, and goes down and up again', async () => {
    const migration = new UserAdministration1764300000000();
    // 1765900000000 dropped the role index this migration made: back first, for this one's down to drop it.
    const dropRoleIdIndex = new DropRoleIdIndex1765900000000();
    const runner = db.dataSource.createQueryRunner();
    const indexes = async () => (await runner.getTable('users'))!.indices.map((i) => [i.name, i.columnNames]);
    try {
      await dropRoleIdIndex.down(runner);
      await migration.down(runner);
      const [pending, joinedId] = [newId(), newId()];
      const insert = 'INSERT INTO users (id, email, email_key, name, username, username_key, password_hash, role_id, invited_at, joined_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
      await runner.query(insert, [pending, 'P@example.com', 'p@example.com', 'ÀDA Pending', null, null, null, member.id, '2026-01-01 00:00:00.000', null]);
      await runner.query(insert, [joinedId, 'J@example.com', 'j@example.com', 'İstanbul Zoë', 'joe', 'joe', 'h', member.id, '2026-01-01 00:00:00.000', '2026-01-02 00:00:00.000']);
      await migration.up(runner);

      const [p, j] = [await row(pending), await row(joinedId)];
      expect([p.status, Number(p.version), p.name_key]).toEqual(['pending', 1, nameSearchKey('ÀDA Pending')]);
      expect([j.status, Number(j.version), j.name_key]).toEqual(['active', 1, nameSearchKey('İstanbul Zoë')]);
      expect(await indexes()).toEqual(
        expect.arrayContaining([
          ['ix_users_role_id', ['role_id', 'id']],
          ['ix_users_status_id', ['status', 'id']],
          ['ix_users_role_status_id', ['role_id', 'status', 'id']],
          ['ix_users_name_key', ['name_key']],
        ]),
      );
      // And gone again, as after every migration: (role_id, id, status) of 1765200000000 reads what it read.
      await dropRoleIdIndex.up(runner);
      expect((await indexes()).map(([name]) => name)).not.toContain('ix_users_role_id');
      await runner.query('DELETE FROM users WHERE id IN (?, ?)', [pending, joinedId]);
    } finally {
      await runner.release();
    }
  });

  it('writes the lower-cased name key with every save', async () => {
    const users = new TypeOrmAdapters(db.dataSource).users();
    const user = joined(`key.${newId().slice(-6)}`, 'Ada LOVELACE');
    await users.add(user);
    expect((await row(user.id)).name_key).toBe('ada lovelace');

    const loaded = (await users.findById(user.id))!;
    loaded.update({ by: newId(), now: new Date(), newId, name: 'Ada KING', previousRole: member });
    await users.update(loaded);
    expect((await row(user.id)).name_key).toBe('ada king');
  });

  it('erasure leaves only the id, role and dates, bumps the token version and forgets the sign-in counters of the username', async () => {
    const adapters = new TypeOrmAdapters(db.dataSource);
    const users = adapters.users();
    const username = `erased.${newId().slice(-6)}`;
    const user = joined(username);
    await users.add(user);
    await db.dataSource.query('INSERT INTO login_attempts (username_key, failures, locked_until, lockouts) VALUES (?, 3, NULL, 0)', [adapters.services.loginAttemptKeys.of(username)]);
    const loaded = (await users.findById(user.id))!;
    const by = newId();
    loaded.delete({ by, now: new Date('2026-05-01T00:00:00.001Z'), newId });

    await adapters.unitOfWork().run(({ users: inTransaction }) => inTransaction.erase(loaded));

    const stored = await row(user.id);
    expect([stored.email, stored.email_key, stored.name, stored.name_key, stored.username, stored.username_key, stored.password_hash]).toEqual(
      Array(7).fill(null),
    );
    expect([stored.status, Number(stored.version), Number(stored.token_version), stored.updated_by, stored.role_id]).toEqual(['deleted', 2, 1, by, member.id]);
    expect(await db.dataSource.query('SELECT * FROM login_attempts WHERE username_key = ?', [adapters.services.loginAttemptKeys.of(username)])).toEqual([]);
  });

  it('leaves erased users out of the pages and the cached total', async () => {
    const adapters = new TypeOrmAdapters(db.dataSource);
    const users = adapters.users();
    const before = (await users.list({ offset: 0, limit: 1 })).total;
    const added = Array.from({ length: 6 }, (_, i) => joined(`deep${i}.${newId().slice(-6)}`));
    for (const user of added) await users.add(user);
    for (const user of [added[1]!, added[4]!]) {
      const loaded = (await users.findById(user.id))!;
      loaded.delete({ by: newId(), now: new Date(), newId });
      await users.erase(loaded);
    }

    const total = (await users.list({ offset: 0, limit: 1 })).total;
    expect(total).toBe(before + 4);
    const all = (await users.list({ offset: 0, limit: 1000 })).items.map((u) => u.id);
    expect(all).not.toContain(added[1]!.id);
    expect(all.slice(-4)).toEqual([added[0]!, added[2]!, added[3]!, added[5]!].map((u) => u.id));
  });
});
