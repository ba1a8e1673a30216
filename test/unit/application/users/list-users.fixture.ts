import { ListUsersUseCase } from '../../../../src/application/users/list-users.use-case';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { RoleMother } from '../../../support/mothers/role.mother';

/** ListUsersUseCase over empty in-memory users and the built-in roles, with an id generator for the users a test adds. */
export function listUsersOverFakes() {
  const users = new InMemoryUserRepository();
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]);
  const listUsers = new ListUsersUseCase({ userRepository: users, roleRepository: roles });
  return { users, roles, listUsers, ids: new SequentialIdGenerator() };
}
