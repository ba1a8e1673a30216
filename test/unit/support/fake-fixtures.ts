import { Email } from '../../../src/domain/users/email';
import { User } from '../../../src/domain/users/user';
import type { SequentialIdGenerator } from '../../support/fakes/sequential-id-generator';
import { RoleMother } from '../../support/mothers/role.mother';

/** A pending member invited now, with ids from `ids`. */
export function invited(ids: SequentialIdGenerator, email: string): User {
  return User.invite({
    id: ids.next(),
    email: Email.parse(email),
    role: RoleMother.member(),
    invitedBy: ids.next(),
    now: new Date(),
    newId: () => ids.next(),
  });
}

/** The same user with other props, as a use case would save it after a change. */
export function changed(user: User, props: Partial<ReturnType<User['toSnapshot']>>): User {
  return User.restore({ ...user.toSnapshot(), ...props });
}
