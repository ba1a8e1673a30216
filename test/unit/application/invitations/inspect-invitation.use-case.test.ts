import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { AcceptInvitationUseCase } from '../../../../src/application/invitations/accept-invitation.use-case';
import { InspectInvitationUseCase } from '../../../../src/application/invitations/inspect-invitation.use-case';
import { FakePasswordHasher } from '../../../support/fakes/fake-password-hasher';
import { FakeSecretTokens } from '../../../support/fakes/fake-secret-tokens';
import { DEFAULT_NOW, FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryInvitationRepository } from '../../../support/fakes/in-memory-invitation.repository';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { InvitationMother } from '../../../support/mothers/invitation.mother';
import { RoleMother } from '../../../support/mothers/role.mother';
import { UserMother } from '../../../support/mothers/user.mother';

function setup() {
  const clock = new FixedClock(DEFAULT_NOW);
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const invitations = new InMemoryInvitationRepository();
  const tokens = new FakeSecretTokens();
  const inspect = new InspectInvitationUseCase({ invitationRepository: invitations, userRepository: users, secretTokens: tokens, clock });
  const invitee = UserMother.pending({ name: 'Grace Hopper', email: 'Grace@Example.com' });
  const { invitation, token } = InvitationMother.valid(invitee.id);
  users.seed(invitee);
  invitations.seed(invitation);
  return { inspect, clock, users, outbox, invitations, tokens, invitee, invitation, token };
}

describe('InspectInvitationUseCase', () => {
  it('shows a valid invitation with the invitee e-mail, name and expiry', async () => {
    const { inspect, invitation, token } = setup();

    await expect(inspect.execute(token)).resolves.toEqual({
      status: 'valid',
      email: 'Grace@Example.com',
      name: 'Grace Hopper',
      expiresAt: invitation.expiresAt,
    });
  });

  it('shows no name for an invitee without one', async () => {
    const { inspect, users, invitations } = setup();
    const nameless = UserMother.pending({ email: 'nameless@example.com' });
    const issued = InvitationMother.valid(nameless.id);
    users.seed(nameless);
    invitations.seed(issued.invitation);

    const view = await inspect.execute(issued.token);

    expect(view).toEqual({ status: 'valid', email: 'nameless@example.com', expiresAt: issued.invitation.expiresAt });
    expect(view).not.toHaveProperty('name');
  });

  it('is valid one millisecond before expiry, and expired at the instant of expiry and after', async () => {
    const { inspect, clock, invitation, token } = setup();
    const statusAt = async (offset: number) => {
      clock.set(new Date(invitation.expiresAt.getTime() + offset));
      return (await inspect.execute(token)).status;
    };

    expect(await statusAt(-1)).toBe('valid');
    expect(await statusAt(0)).toBe('expired');
    expect(await statusAt(1)).toBe('expired');
    expect(await statusAt(30 * 86_400_000)).toBe('expired');
  });

  it('shows an expired invitation with its e-mail and expiry, so the page can say whom to ask', async () => {
    const { inspect, clock, invitation, token } = setup();
    clock.set(invitation.expiresAt);

    await expect(inspect.execute(token)).resolves.toEqual({
      status: 'expired',
      email: 'Grace@Example.com',
      name: 'Grace Hopper',
      expiresAt: invitation.expiresAt,
    });
  });

  it('shows a used invitation as used, even after it would have expired', async () => {
    const { inspect, users, invitations, clock } = setup();
    const joined = UserMother.joined({ email: 'joined@example.com' });
    const used = InvitationMother.used(joined.id);
    users.seed(joined);
    invitations.seed(used.invitation);

    await expect(inspect.execute(used.token)).resolves.toMatchObject({ status: 'used', email: 'joined@example.com' });
    clock.set(new Date(used.invitation.expiresAt.getTime() + 1));
    await expect(inspect.execute(used.token)).resolves.toMatchObject({ status: 'used' });
  });

  it.each([
    ['an unknown token', 'not-a-token'],
    ['a token of the right shape that was never issued', 'fake-secret-token-1-xxxxxxxxxxxxxxxxxxxxxxx'],
  ])('shows %s as unknown, with nothing else', async (_label, token) => {
    const { inspect } = setup();

    await expect(inspect.execute(token)).resolves.toEqual({ status: 'unknown' });
  });

  it('shows the token of a replaced invitation as unknown', async () => {
    const { inspect, invitations, invitee, token } = setup();
    invitations.seed(InvitationMother.valid(invitee.id).invitation);

    await expect(inspect.execute(token)).resolves.toEqual({ status: 'unknown' });
  });

  it('shows the token of a user that is gone (revoked) as unknown', async () => {
    const { inspect, users, invitee, token } = setup();
    await users.delete(invitee);

    await expect(inspect.execute(token)).resolves.toEqual({ status: 'unknown' });
  });

  it.each([
    ['empty', ''],
    ['500 characters long', 'x'.repeat(500)],
  ])('shows a token that is %s as unknown, even if an invitation held its hash', async (_label, token) => {
    const { inspect, users, invitations, tokens } = setup();
    const other = UserMother.pending();
    users.seed(other);
    invitations.seed(InvitationMother.valid(other.id, { token }).invitation);

    await expect(inspect.execute(token)).resolves.toEqual({ status: 'unknown' });
    expect(tokens.hashCalls).toBe(0);
  });

  it('consumes nothing: after two inspections the invitation is unused and can still be accepted', async () => {
    const { inspect, users, outbox, invitations, tokens, clock, invitee, invitation, token } = setup();

    await inspect.execute(token);
    await inspect.execute(token);

    expect(invitations.forUser(invitee.id)).toEqual(invitation);
    expect((await users.findById(invitee.id))!.toSnapshot()).toEqual(invitee.toSnapshot());
    const accept = new AcceptInvitationUseCase({ auditRecorder: auditRecorderFor().auditRecorder,
      unitOfWork: new InMemoryUnitOfWork({ users, outbox, invitations, roles: new InMemoryRoleRepository([RoleMother.member()]) }),
      secretTokens: tokens,
      passwordHasher: new FakePasswordHasher(),
      clock,
      idGenerator: new SequentialIdGenerator(0xb0),
    });
    await expect(accept.execute({ token, name: 'Grace Hopper', username: 'grace', password: 'a long enough passphrase' })).resolves.toEqual({
      userId: invitee.id,
    });
    await expect(inspect.execute(token)).resolves.toMatchObject({ status: 'used' });
  });
});
