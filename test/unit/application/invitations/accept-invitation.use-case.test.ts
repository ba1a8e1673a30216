import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { AcceptInvitationUseCase, type AcceptInvitationInput } from '../../../../src/application/invitations/accept-invitation.use-case';
import { SignInUseCase } from '../../../../src/application/auth/sign-in.use-case';
import {
  InvitationExpiredError,
  InvitationNotFoundError,
  InvitationUsedError,
} from '../../../../src/domain/invitations/invitation.errors';
import { ValidationError } from '../../../../src/domain/shared/domain-error';
import { USER_JOINED } from '../../../../src/domain/users/user-events';
import { UsernameAlreadyTakenError } from '../../../../src/domain/users/user.errors';
import { FakePasswordHasher, fakeHashOf } from '../../../support/fakes/fake-password-hasher';
import { FakeSecretTokens } from '../../../support/fakes/fake-secret-tokens';
import { FakeTokenIssuer } from '../../../support/fakes/fake-token-issuer';
import { fakeSessionIssuer } from '../../../support/fakes/fake-session-issuer';
import { DEFAULT_NOW, FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryInvitationRepository } from '../../../support/fakes/in-memory-invitation.repository';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryLoginAttempts } from '../../../support/fakes/in-memory-login-attempts';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { InvitationMother } from '../../../support/mothers/invitation.mother';
import { RoleMother } from '../../../support/mothers/role.mother';
import { UserMother } from '../../../support/mothers/user.mother';

const PASSWORD = 'a long enough passphrase';

function setup() {
  const clock = new FixedClock(DEFAULT_NOW);
  const ids = new SequentialIdGenerator(0xa0);
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const invitations = new InMemoryInvitationRepository();
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]);
  const unitOfWork = new InMemoryUnitOfWork({ users, outbox, invitations, roles });
  const hasher = new FakePasswordHasher();
  const tokens = new FakeSecretTokens();
  const accept = new AcceptInvitationUseCase({ auditRecorder: auditRecorderFor().auditRecorder,
    unitOfWork,
    secretTokens: tokens,
    passwordHasher: hasher,
    clock,
    idGenerator: ids,
  });
  const invitee = UserMother.pending({ name: 'Invited As', email: 'Grace@Example.com', role: RoleMother.member() });
  const { invitation, token } = InvitationMother.valid(invitee.id);
  users.seed(invitee);
  invitations.seed(invitation);
  const input = (overrides: Partial<AcceptInvitationInput> = {}): AcceptInvitationInput => ({
    token,
    name: 'Grace Hopper',
    username: 'grace.hopper',
    password: PASSWORD,
    ...overrides,
  });
  /** The invitee is still pending, its token unused, and no event was recorded. */
  const expectNothingChanged = async () => {
    const stored = (await users.findById(invitee.id))!;
    expect(stored.toSnapshot()).toEqual(invitee.toSnapshot());
    expect(stored.isJoined).toBe(false);
    expect(invitations.forUser(invitee.id)).toEqual(invitation);
    expect(outbox.events).toEqual([]);
  };
  return { accept, clock, users, outbox, invitations, roles, hasher, tokens, unitOfWork, invitee, invitation, token, input, expectNothingChanged };
}

describe('AcceptInvitationUseCase', () => {
  describe('success', () => {
    it('sets the name, username, password hash and joined date of the invitee, who is then joined', async () => {
      const { accept, users, invitee, input, clock } = setup();
      clock.advance(5_000);

      await expect(accept.execute(input({ name: '  Grace Hopper ', username: 'Grace.Hopper' }))).resolves.toEqual({ userId: invitee.id });

      const stored = (await users.findById(invitee.id))!;
      expect(stored.name).toBe('Grace Hopper');
      expect(stored.username).toBe('Grace.Hopper');
      expect(stored.passwordHash).toBe(fakeHashOf(PASSWORD));
      expect(stored.joinedAt).toEqual(clock.now());
      expect(stored.updatedAt).toEqual(clock.now());
      expect(stored.updatedBy).toBe(invitee.id);
      expect(stored.isJoined).toBe(true);
      expect(stored.email).toBe(invitee.email);
      expect(stored.roleId).toBe(invitee.roleId);
      expect(stored.invitedAt).toEqual(invitee.invitedAt);
    });

    it('marks the invitation used at that instant, keeping the rest of it', async () => {
      const { accept, invitations, invitee, invitation, input, clock } = setup();

      await accept.execute(input());

      expect(invitations.forUser(invitee.id)).toEqual({ ...invitation, usedAt: clock.now() });
    });

    it('records exactly one UserJoined, with the user, its role and the date, and no password or hash', async () => {
      const { accept, outbox, invitee, input } = setup();

      await accept.execute(input({ username: 'Grace.Hopper' }));

      expect(outbox.events).toHaveLength(1);
      const [event] = outbox.events;
      expect(event.type).toBe(USER_JOINED);
      expect(event.aggregateId).toBe(invitee.id);
      expect(event.occurredAt).toEqual(DEFAULT_NOW);
      expect(event.data).toEqual({
        user_id: invitee.id,
        email: 'Grace@Example.com',
        username: 'Grace.Hopper',
        name: 'Grace Hopper',
        role: { _id: RoleMother.member().id, name: 'member' },
        joined_date: DEFAULT_NOW.toISOString(),
      });
      expect(JSON.stringify(event.data)).not.toContain(PASSWORD);
      expect(JSON.stringify(event.data)).not.toContain(fakeHashOf(PASSWORD));
    });

    it('lets the user be found by its username in any case, and sign in with the password', async () => {
      const { accept, users, roles, hasher, clock, invitee, input } = setup();

      await accept.execute(input({ username: 'Grace.Hopper' }));

      expect((await users.findByUsername('GRACE.hopper'))?.id).toBe(invitee.id);
      const signIn = new SignInUseCase({ auditRecorder: auditRecorderFor().auditRecorder, userRepository: users, roleRepository: roles, passwordHasher: hasher, sessionIssuer: fakeSessionIssuer(new FakeTokenIssuer(clock), clock).sessionIssuer, loginAttempts: new InMemoryLoginAttempts(), lockoutPolicy: { threshold: 30, baseWaitSeconds: 60, maxWaitSeconds: 900 }, clock });
      await expect(signIn.execute({ username: 'grace.hopper', password: PASSWORD })).resolves.toMatchObject({
        username: 'Grace.Hopper',
        email: 'Grace@Example.com',
      });
    });

    it('hashes the password once, before any transaction', async () => {
      const { accept, hasher, input } = setup();

      await accept.execute(input());

      expect(hasher.hashed).toEqual([PASSWORD]);
    });

    it.each([
      ['12 characters', 'x'.repeat(12)],
      ['128 characters', 'x'.repeat(128)],
      ['128 code points of 2 UTF-16 units each', '😀'.repeat(128)],
    ])('accepts a password of %s', async (_label, password) => {
      const { accept, users, invitee, input } = setup();

      await accept.execute(input({ password }));

      expect((await users.findById(invitee.id))!.passwordHash).toBe(fakeHashOf(password));
    });

    it('accepts one millisecond before expiry', async () => {
      const { accept, clock, invitation, users, invitee, input } = setup();
      clock.set(new Date(invitation.expiresAt.getTime() - 1));

      await accept.execute(input());

      expect((await users.findById(invitee.id))!.isJoined).toBe(true);
    });

    it('keeps the invitee username given when another user holds a different one', async () => {
      const { accept, users, invitee, input } = setup();
      users.seed(UserMother.joined({ username: 'grace' }));

      await accept.execute(input({ username: 'grace.hopper' }));

      expect((await users.findById(invitee.id))!.username).toBe('grace.hopper');
    });
  });

  describe('an invitation that cannot be accepted', () => {
    it.each(['unknown-token', '', 'x'.repeat(500)])('refuses an unknown token (%j) with InvitationNotFoundError, changing nothing', async (token) => {
      const { accept, input, expectNothingChanged } = setup();

      await expect(accept.execute(input({ token }))).rejects.toBeInstanceOf(InvitationNotFoundError);

      await expectNothingChanged();
    });

    it('refuses the token of an old invitation, replaced by a newer one, with InvitationNotFoundError', async () => {
      const { accept, invitations, invitee, token, input } = setup();
      invitations.seed(InvitationMother.valid(invitee.id).invitation);

      await expect(accept.execute(input({ token }))).rejects.toBeInstanceOf(InvitationNotFoundError);
    });

    it('refuses a token whose user is gone with InvitationNotFoundError', async () => {
      const { accept, invitations, outbox } = setup();
      const orphan = InvitationMother.valid('0000ffff-0000-7000-8000-000000000001');
      invitations.seed(orphan.invitation);

      await expect(accept.execute({ token: orphan.token, name: 'X Y', username: 'xy.z', password: PASSWORD })).rejects.toBeInstanceOf(
        InvitationNotFoundError,
      );
      expect(outbox.events).toEqual([]);
    });

    it('refuses a used invitation with InvitationUsedError', async () => {
      const { accept, users, invitations, outbox } = setup();
      const other = UserMother.pending();
      const used = InvitationMother.used(other.id);
      users.seed(other);
      invitations.seed(used.invitation);

      await expect(accept.execute({ token: used.token, name: 'X Y', username: 'xy.z', password: PASSWORD })).rejects.toBeInstanceOf(
        InvitationUsedError,
      );
      expect((await users.findById(other.id))!.isJoined).toBe(false);
      expect(invitations.forUser(other.id)).toEqual(used.invitation);
      expect(outbox.events).toEqual([]);
    });

    it('refuses a second acceptance of the same token with InvitationUsedError, keeping the first credentials', async () => {
      const { accept, users, outbox, invitee, input } = setup();
      await accept.execute(input());

      const again = accept.execute(input({ username: 'someone.else', password: 'another long passphrase' }));

      await expect(again).rejects.toBeInstanceOf(InvitationUsedError);
      const stored = (await users.findById(invitee.id))!;
      expect(stored.username).toBe('grace.hopper');
      expect(stored.passwordHash).toBe(fakeHashOf(PASSWORD));
      expect(outbox.events).toHaveLength(1);
    });

    it.each([
      ['at the instant of expiry', 0],
      ['one millisecond after', 1],
      ['a day after', 86_400_000],
    ])('refuses an expired invitation %s with InvitationExpiredError, changing nothing', async (_label, after) => {
      const { accept, clock, invitation, input, expectNothingChanged } = setup();
      clock.set(new Date(invitation.expiresAt.getTime() + after));

      await expect(accept.execute(input())).rejects.toBeInstanceOf(InvitationExpiredError);

      await expectNothingChanged();
    });
  });

  describe('a username that is taken', () => {
    it.each([
      ['the same case', 'grace.hopper'],
      ['another case', 'Grace.HOPPER'],
    ])('refuses one held by another user in %s with UsernameAlreadyTakenError, changing nothing', async (_label, held) => {
      const { accept, users, unitOfWork, input, expectNothingChanged } = setup();
      users.seed(UserMother.joined({ username: held }));

      await expect(accept.execute(input({ username: 'grace.hopper' }))).rejects.toBeInstanceOf(UsernameAlreadyTakenError);

      await expectNothingChanged();
      expect(unitOfWork.commits).toBe(0);
    });

    it('lets one of two invitees racing for the same username through; the other gets UsernameAlreadyTakenError and stays pending', async () => {
      const { accept, users, invitations, outbox, invitee, token } = setup();
      const rival = UserMother.pending();
      const rivals = InvitationMother.valid(rival.id);
      users.seed(rival);
      invitations.seed(rivals.invitation);

      const outcomes = await Promise.allSettled([
        accept.execute({ token, name: 'Grace', username: 'Taken.Name', password: PASSWORD }),
        accept.execute({ token: rivals.token, name: 'Rival', username: 'taken.name', password: PASSWORD }),
      ]);

      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(rejected).toHaveLength(1);
      expect(rejected[0].reason).toBeInstanceOf(UsernameAlreadyTakenError);
      const joined = [invitee.id, rival.id].filter((id) => users.all().find((u) => u.id === id)!.isJoined);
      expect(joined).toHaveLength(1);
      const loser = joined[0] === invitee.id ? rival.id : invitee.id;
      expect(invitations.forUser(loser)!.usedAt).toBeUndefined();
      expect(outbox.events.map((e) => e.aggregateId)).toEqual(joined);
    });
  });

  describe('one token accepted twice at the same time', () => {
    // A single-use token: whatever the timing, one acceptance wins and the other is refused.
    it('lets exactly one acceptance through and records exactly one UserJoined', async () => {
      const { accept, users, outbox, invitee, input } = setup();

      const outcomes = await Promise.allSettled([
        accept.execute(input({ username: 'first.taker', password: 'first long passphrase' })),
        accept.execute(input({ username: 'second.taker', password: 'second long passphrase' })),
      ]);

      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(outbox.events.filter((e) => e.type === USER_JOINED)).toHaveLength(1);
      const winner = outcomes[0].status === 'fulfilled' ? 'first' : 'second';
      const stored = (await users.findById(invitee.id))!;
      expect(stored.username).toBe(`${winner}.taker`);
      expect(stored.passwordHash).toBe(fakeHashOf(`${winner} long passphrase`));
    });
  });

  describe('invalid input', () => {
    it('lists every bad field at once, without hashing or touching anything', async () => {
      const { accept, hasher, input, expectNothingChanged } = setup();

      const error = await accept.execute(input({ name: '   ', username: 'no', password: 'short' })).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).problems.map((p) => p.field)).toEqual(['name', 'username', 'password']);
      expect(hasher.hashCalls).toBe(0);
      await expectNothingChanged();
    });

    it.each<[string, { username?: string; email?: string; password: string }]>([
      ['its username', { username: 'grace.hopper.1906', password: 'Grace.Hopper.1906' }],
      ['its e-mail address', { password: 'GRACE@example.com   ' }],
      ['its address before the @', { email: 'grace.b.m.hopper@example.com', password: 'Grace.B.M.Hopper' }],
    ])('refuses a password that is %s, naming the field, and changes nothing', async (_label, { username, email, password }) => {
      const { accept, users, invitee, input, expectNothingChanged } = setup();
      if (email !== undefined) {
        await users.update(UserMother.pending({ id: invitee.id, name: 'Invited As', email, role: RoleMother.member() }));
      }
      const error = await accept.execute(input({ ...(username ? { username } : {}), password })).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).problems).toEqual([{ field: 'password', message: 'must not be your username or e-mail address' }]);
      if (email === undefined) await expectNothingChanged();
      else expect((await users.findById(invitee.id))!.isJoined).toBe(false);
    });

    it('validates before looking at the token: an unknown token with bad fields is a ValidationError', async () => {
      const { accept, hasher } = setup();

      const error = await accept.execute({ token: 'unknown', name: '', username: 'a b', password: PASSWORD }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).problems.map((p) => p.field)).toEqual(['name', 'username']);
      expect(hasher.hashCalls).toBe(0);
    });

    it.each(['', '   ', 'bad\u0000name', 'tab\tname', 'x'.repeat(201)])('refuses the name %j with a ValidationError on name only', async (name) => {
      const { accept, hasher, input, expectNothingChanged } = setup();

      const error = await accept.execute(input({ name })).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).problems.map((p) => p.field)).toEqual(['name']);
      expect(hasher.hashCalls).toBe(0);
      await expectNothingChanged();
    });

    it.each(['', 'ab', 'x'.repeat(65), 'grace hopper', 'grace@example.com', 'grâce'])(
      'refuses the username %j with a ValidationError on username only',
      async (username) => {
        const { accept, hasher, input, expectNothingChanged } = setup();

        const error = await accept.execute(input({ username })).catch((e: unknown) => e);

        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).problems.map((p) => p.field)).toEqual(['username']);
        expect(hasher.hashCalls).toBe(0);
        await expectNothingChanged();
      },
    );

    it.each([
      ['empty', ''],
      ['11 characters', 'x'.repeat(11)],
      ['129 characters', 'x'.repeat(129)],
      ['1000 characters', 'x'.repeat(1000)],
      ['129 code points', '😀'.repeat(129)],
    ])('refuses a password of %s with a ValidationError on password, and never calls the hasher', async (_label, password) => {
      const { accept, hasher, input, expectNothingChanged } = setup();

      const error = await accept.execute(input({ password })).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).problems.map((p) => p.field)).toEqual(['password']);
      expect(hasher.hashCalls).toBe(0);
      await expectNothingChanged();
    });
  });

  describe('atomicity', () => {
    it('changes nothing when the event cannot be saved: the user stays pending and the token unused', async () => {
      const { accept, outbox, unitOfWork, input, expectNothingChanged } = setup();
      outbox.failNextAppendWith(new Error('outbox table unavailable'));

      await expect(accept.execute(input())).rejects.toThrow('outbox table unavailable');

      await expectNothingChanged();
      expect(unitOfWork.rollbacks).toBe(1);
      await expect(accept.execute(input())).resolves.toBeDefined();
    });
  });
});
