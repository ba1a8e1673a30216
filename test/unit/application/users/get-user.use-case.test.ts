import { GetUserUseCase } from '../../../../src/application/users/get-user.use-case';
import { administrationWorld } from './administration-world';

describe('GetUserUseCase: a pending user’s invitation expiry (#25)', () => {
  const setup = () => {
    const world = administrationWorld();
    return { ...world, get: new GetUserUseCase({ userRepository: world.users, roleRepository: world.roles, invitationRepository: world.invitations }) };
  };
  const link = (userId: string, expiresAt: string, usedAt?: string) => ({
    userId,
    tokenHash: `hash-of-${userId}`,
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    expiresAt: new Date(expiresAt),
    ...(usedAt ? { usedAt: new Date(usedAt) } : {}),
  });

  it('says when the pending user’s current link expires', async () => {
    const { get, admin, invitee, invitations } = setup();
    invitations.seed(link(invitee.id, '2026-01-08T00:00:00.000Z'));
    expect((await get.execute({ actor: admin, userId: invitee.id })).user.invitation_expires_date).toBe('2026-01-08T00:00:00.000Z');
  });

  it('leaves it out before the mailer issued the link, for a used link, and for a joined user', async () => {
    const { get, admin, invitee, member, invitations } = setup();
    expect((await get.execute({ actor: admin, userId: invitee.id })).user).not.toHaveProperty('invitation_expires_date');
    invitations.seed(link(invitee.id, '2026-01-08T00:00:00.000Z', '2026-01-02T00:00:00.000Z'), link(member.id, '2026-01-08T00:00:00.000Z'));
    expect((await get.execute({ actor: admin, userId: invitee.id })).user).not.toHaveProperty('invitation_expires_date');
    expect((await get.execute({ actor: admin, userId: member.id })).user).not.toHaveProperty('invitation_expires_date');
  });
});
