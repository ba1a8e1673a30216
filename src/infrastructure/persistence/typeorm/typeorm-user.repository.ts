import type { EntityManager, Repository } from 'typeorm';
import type { UserRepository } from '../../../application/ports/user-repository.port';
import type { Slice } from '../../../application/shared/pagination';
import { Email } from '../../../domain/users/email';
import { User } from '../../../domain/users/user';
import { EmailAlreadyTakenError, UsernameAlreadyTakenError } from '../../../domain/users/user.errors';
import { Username } from '../../../domain/users/username';
import { uniqueViolationOn } from './database-errors';
import { type UserRecord, UserSchema } from './records';

export class TypeOrmUserRepository implements UserRepository {
  private readonly repository: Repository<UserRecord>;

  constructor(manager: EntityManager) {
    this.repository = manager.getRepository(UserSchema);
  }

  async findById(id: string): Promise<User | null> {
    const record = await this.repository.findOneBy({ id });
    return record ? toDomain(record) : null;
  }

  async findByUsername(username: string): Promise<User | null> {
    const record = await this.repository.findOneBy({ usernameKey: Username.normalize(username) });
    return record ? toDomain(record) : null;
  }

  async existsWithEmail(email: string): Promise<boolean> {
    return this.repository.exists({ where: { emailKey: Email.normalize(email) } });
  }

  async existsWithUsername(username: string): Promise<boolean> {
    return this.repository.exists({ where: { usernameKey: Username.normalize(username) } });
  }

  async add(user: User): Promise<void> {
    try {
      await this.repository.insert(toRecord(user));
    } catch (error) {
      const index = uniqueViolationOn(error);
      if (index?.includes('email')) throw new EmailAlreadyTakenError();
      if (index?.includes('username')) throw new UsernameAlreadyTakenError();
      throw error;
    }
  }

  async update(user: User): Promise<void> {
    try {
      await this.repository.update({ id: user.id }, toRecord(user));
    } catch (error) {
      if (uniqueViolationOn(error)?.includes('username')) throw new UsernameAlreadyTakenError();
      throw error;
    }
  }

  async delete(id: string): Promise<void> {
    await this.repository.delete({ id });
  }

  async list({ offset, limit }: Slice): Promise<{ items: User[]; total: number }> {
    const [records, total] = await Promise.all([
      this.repository.find({ order: { id: 'ASC' }, skip: offset, take: limit }),
      this.repository.count(),
    ]);
    return { items: records.map(toDomain), total };
  }
}

function toDomain(r: UserRecord): User {
  return User.restore({
    id: r.id,
    email: r.email,
    name: r.name ?? undefined,
    username: r.username ?? undefined,
    passwordHash: r.passwordHash ?? undefined,
    roleId: r.roleId,
    invitedAt: r.invitedAt,
    invitedBy: r.invitedBy ?? undefined,
    joinedAt: r.joinedAt ?? undefined,
    updatedAt: r.updatedAt ?? undefined,
    updatedBy: r.updatedBy ?? undefined,
  });
}

function toRecord(user: User): UserRecord {
  const u = user.toSnapshot();
  return {
    id: u.id,
    email: u.email,
    emailKey: Email.normalize(u.email),
    name: u.name ?? null,
    username: u.username ?? null,
    usernameKey: u.username === undefined ? null : Username.normalize(u.username),
    passwordHash: u.passwordHash ?? null,
    roleId: u.roleId,
    invitedAt: u.invitedAt,
    invitedBy: u.invitedBy ?? null,
    joinedAt: u.joinedAt ?? null,
    updatedAt: u.updatedAt ?? null,
    updatedBy: u.updatedBy ?? null,
  };
}
