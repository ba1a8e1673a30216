import { UserAlreadyJoinedError } from '../../../src/domain/invitations/invitation.errors';
import type { DomainEvent } from '../../../src/domain/shared/domain-event';
import type { User } from '../../../src/domain/users/user';
import { USER_INVITATION_RESENT, USER_INVITATION_REVOKED, USER_JOINED } from '../../../src/domain/users/user-events';
import { Username } from '../../../src/domain/users/username';
import { fakeHashOf } from '../../support/fakes/fake-password-hasher';
import { SequentialIdGenerator } from '../../support/fakes/sequential-id-generator';
import { RoleMother } from '../../support/mothers/role.mother';
import { DEFAULT_PASSWORD, UserMother } from '../../support/mothers/user.mother';

const NOW = new Date('2026-02-10T08:15:30.125Z');
const HASH = fakeHashOf('a brand new passphrase');
const ADMIN = '0000000d-0000-7000-8000-0000000000ad';

function ids() {
  const generator = new SequentialIdGenerator(0xee);
  return { generator, newId: () => generator.next() };
}

/** Nothing secret in what is published: no hash (of the user or the one given) nor the word for it. */
function expectNoSecret(events: DomainEvent[], ...secrets: string[]) {
  for (const event of events) {
    const json = JSON.stringify(event.data);
    for (const secret of secrets) expect(json).not.toContain(secret);
    expect(json).not.toMatch(/password|hash|token|secret/i);
  }
}

const actions: [string, (user: User, newId: () => string) => void][] = [
  [
    'join',
    (user, newId) =>
      user.join({ name: 'Grace', username: Username.parse('grace'), passwordHash: HASH, role: RoleMother.member(), now: NOW, newId }),
  ],
  ['resendInvitation', (user, newId) => user.resendInvitation({ by: ADMIN, role: RoleMother.member(), now: NOW, newId })],
  ['revokeInvitation', (user, newId) => user.revokeInvitation({ by: ADMIN, now: NOW, newId })],
];

describe('User.join', () => {
  it('gives the pending user its name, username, password hash and joined date, and it is joined', () => {
    const user = UserMother.pending({ name: 'Invited Name', email: 'Grace@Example.com' });
    const before = user.toSnapshot();

    user.join({ name: 'Grace Hopper', username: Username.parse('Grace.H'), passwordHash: HASH, role: RoleMother.admin(), now: NOW, newId: ids().newId });

    expect(user.toSnapshot()).toEqual({
      ...before,
      name: 'Grace Hopper',
      username: 'Grace.H',
      passwordHash: HASH,
      joinedAt: NOW,
      updatedAt: NOW,
      updatedBy: user.id,
      status: 'active',
    });
    expect(user.isJoined).toBe(true);
  });

  it('records exactly one UserJoined with the user, its role and the date, and no secret', () => {
    const user = UserMother.pending({ email: 'Grace@Example.com' });
    const { generator, newId } = ids();

    user.join({ name: 'Grace Hopper', username: Username.parse('Grace.H'), passwordHash: HASH, role: RoleMother.admin(), now: NOW, newId });

    const events = user.pullDomainEvents();
    expect(events).toEqual([
      {
        id: '000000ee-0000-7000-8000-000000000001',
        type: USER_JOINED,
        aggregateId: user.id,
        occurredAt: NOW,
        data: {
          user_id: user.id,
          email: 'Grace@Example.com',
          username: 'Grace.H',
          name: 'Grace Hopper',
          role: { _id: RoleMother.admin().id, name: 'admin' },
          joined_date: '2026-02-10T08:15:30.125Z',
        },
      },
    ]);
    expect(generator.next()).toBe('000000ee-0000-7000-8000-000000000002');
    expectNoSecret(events, HASH);
    expect(user.pullDomainEvents()).toEqual([]);
  });
});

describe('User.resendInvitation', () => {
  it('records who resent it and when, and one UserInvitationResent with the user, its name and role', () => {
    const user = UserMother.pending({ name: 'Grace', email: 'grace@example.com', role: RoleMother.member() });
    const before = user.toSnapshot();

    user.resendInvitation({ by: ADMIN, role: RoleMother.member(), now: NOW, newId: ids().newId });

    expect(user.toSnapshot()).toEqual({ ...before, updatedAt: NOW, updatedBy: ADMIN });
    expect(user.isJoined).toBe(false);
    const events = user.pullDomainEvents();
    expect(events).toEqual([
      {
        id: '000000ee-0000-7000-8000-000000000001',
        type: USER_INVITATION_RESENT,
        aggregateId: user.id,
        occurredAt: NOW,
        data: {
          user_id: user.id,
          email: 'grace@example.com',
          name: 'Grace',
          role: { _id: RoleMother.member().id, name: 'member' },
          resent_by: ADMIN,
          resent_date: '2026-02-10T08:15:30.125Z',
        },
      },
    ]);
  });

  it('leaves the name out of the event when the invitee has none', () => {
    const user = UserMother.pending();

    user.resendInvitation({ by: ADMIN, role: RoleMother.member(), now: NOW, newId: ids().newId });

    expect(user.pullDomainEvents()[0].data).not.toHaveProperty('name');
  });
});

describe('User.revokeInvitation', () => {
  it('records one UserInvitationRevoked with who revoked it and when', () => {
    const user = UserMother.pending({ email: 'grace@example.com' });
    const before = user.toSnapshot();

    user.revokeInvitation({ by: ADMIN, now: NOW, newId: ids().newId });

    expect(user.toSnapshot()).toEqual(before);
    expect(user.pullDomainEvents()).toEqual([
      {
        id: '000000ee-0000-7000-8000-000000000001',
        type: USER_INVITATION_REVOKED,
        aggregateId: user.id,
        occurredAt: NOW,
        data: { user_id: user.id, email: 'grace@example.com', revoked_by: ADMIN, revoked_date: '2026-02-10T08:15:30.125Z' },
      },
    ]);
  });
});

describe.each(actions)('User.%s', (_name, act) => {
  it('is refused for a joined user with UserAlreadyJoinedError, changing and recording nothing', () => {
    const user = UserMother.joined();
    const before = user.toSnapshot();
    const { generator, newId } = ids();

    expect(() => act(user, newId)).toThrow(UserAlreadyJoinedError);
    expect(user.toSnapshot()).toEqual(before);
    expect(user.pullDomainEvents()).toEqual([]);
    expect(generator.next()).toBe('000000ee-0000-7000-8000-000000000001');
  });

  it('puts no secret in its event, even for an invitee caught half-way with a password hash', () => {
    const stale = fakeHashOf(DEFAULT_PASSWORD);
    const user = UserMother.pending({ passwordHash: stale, username: 'halfway' });

    act(user, ids().newId);

    const events = user.pullDomainEvents();
    expect(events).toHaveLength(1);
    expectNoSecret(events, stale, HASH);
  });
});
