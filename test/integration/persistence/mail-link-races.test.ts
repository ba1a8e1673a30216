import { randomUUID } from 'node:crypto';
import { IssueInvitationUseCase } from '../../../src/application/invitations/issue-invitation.use-case';
import { IssuePasswordResetUseCase } from '../../../src/application/password-reset/issue-password-reset.use-case';
import type { Role } from '../../../src/domain/roles/role';
import { User } from '../../../src/domain/users/user';
import { Email } from '../../../src/domain/users/email';
import { Username } from '../../../src/domain/users/username';
import { RandomSecretTokens } from '../../../src/infrastructure/crypto/random-secret-tokens';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { SystemClock } from '../../../src/infrastructure/system/system-clock';
import { CapturingMailer } from '../../support/capturing-mailer';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

const ids = new UuidV7IdGenerator();
const tokens = new RandomSecretTokens();
const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
const DAY = 86_400_000;

/**
 * The mailer issuing an invitee's link while that invitee's acceptance is in flight (review I): on MariaDB and MySQL
 * the mailer read the invitee pending without a lock, and its new link overwrote the used one as soon as the
 * acceptance let the row go, so a joined user was mailed a link to join again. The acceptance is held open here, past
 * its link's use and the user's change, while the mailer runs.
 */
describe.each(ALL_TARGETS)('the mailer and an acceptance at once on $name', (target) => {
  const db = migratedDatabase(target);

  it('the mailer waits for the acceptance, finds the user joined and mails nothing; the used link stays used', async () => {
    const now = new Date();
    const invitee = User.invite({ id: ids.next(), email: Email.parse(`race-${randomUUID().slice(0, 8)}@example.com`), role: member, invitedBy: ids.next(), now, newId: () => ids.next() });
    invitee.pullDomainEvents();
    await db.adapters.users().add(invitee);
    const link = tokens.generate();
    await db.adapters.unitOfWork().run(({ invitations }) =>
      invitations.replaceForUser({ userId: invitee.id, tokenHash: link.hash, createdAt: now, expiresAt: new Date(now.getTime() + DAY) }),
    );

    const mailer = new CapturingMailer();
    const issue = new IssueInvitationUseCase({
      unitOfWork: db.adapters.unitOfWork(),
      processedEventStore: db.adapters.processedEvents(),
      secretTokens: tokens,
      mailer,
      clock: new SystemClock(),
      invitationSettings: { publicUrl: 'https://ac.example.test', invitationTtlSeconds: 7 * 24 * 3600 },
    });

    // Started from inside the acceptance, but chained out here: on SQLite a unit of work begun from inside another's
    // turn would wait for it forever (SqliteWriteQueue refuses it), as no request of the service ever does.
    let startMailer!: () => void;
    const mailing = new Promise<void>((resolve) => (startMailer = resolve)).then(() => issue.execute({ eventId: ids.next(), userId: invitee.id }));
    mailing.catch(() => undefined);
    await db.adapters.unitOfWork().run(async ({ invitations, users }) => {
      // What AcceptInvitationUseCase does, in its order: the link used first, then the user read for change and joined.
      expect(await invitations.markUsed({ userId: invitee.id, tokenHash: link.hash }, new Date())).toBe(true);
      const user = (await users.findForChange(invitee.id))!;
      user.join({ name: 'Racing Invitee', username: Username.parse(`race-${randomUUID().slice(0, 8)}`), passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA', role: member, now: new Date(), newId: () => ids.next() });
      await users.update(user);
      // The mailer starts while the acceptance holds its rows (on SQLite it takes its turn after, as every write does).
      startMailer();
      await new Promise((resolve) => setTimeout(resolve, 300));
    });

    expect(await mailing).toBe('not-pending');
    expect(mailer.sent).toEqual([]);
    const stored = await db.adapters.invitations().findForUser(invitee.id);
    expect(stored).toMatchObject({ tokenHash: link.hash, usedAt: expect.any(Date) });
  });
});

/**
 * The mailer issuing a password-reset link while an admin's deactivation of that user is in flight: the deactivation
 * ends the user's reset links, and a link the mailer wrote after it came back alive with a reactivation. The mailer
 * reads the user for change, so it waits for the deactivation and then sends nothing.
 */
describe.each(ALL_TARGETS)('the mailer and a deactivation at once on $name', (target) => {
  const db = migratedDatabase(target);

  it('the mailer waits for the deactivation, finds the user deactivated, mails nothing and leaves no link', async () => {
    const user = User.createJoined({
      id: ids.next(),
      email: Email.parse(`reset-race-${randomUUID().slice(0, 8)}@example.com`),
      name: 'Reset Race',
      username: Username.parse(`reset-race-${randomUUID().slice(0, 8)}`),
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
      role: member,
      now: new Date(),
    });
    await db.adapters.users().add(user);
    const mailer = new CapturingMailer();
    const issue = new IssuePasswordResetUseCase({
      unitOfWork: db.adapters.unitOfWork(),
      processedEventStore: db.adapters.processedEvents(),
      secretTokens: tokens,
      passwordResetMailer: mailer,
      clock: new SystemClock(),
      passwordResetSettings: { publicUrl: 'https://ac.example.test', passwordResetTtlSeconds: 3600 },
    });

    let startMailer!: () => void;
    const mailing = new Promise<void>((resolve) => (startMailer = resolve)).then(() => issue.execute({ eventId: ids.next(), userId: user.id }));
    mailing.catch(() => undefined);
    await db.adapters.unitOfWork().run(async ({ users, passwordResets }) => {
      // What DeactivateUserUseCase does: the user read for change and deactivated, its reset links ended.
      const current = (await users.findForChange(user.id))!;
      current.deactivate({ by: ids.next(), now: new Date(), newId: () => ids.next() });
      await users.update(current);
      await passwordResets.deleteForUser(user.id);
      startMailer();
      await new Promise((resolve) => setTimeout(resolve, 300));
    });

    expect(await mailing).toBe('not-active');
    expect(mailer.sent).toEqual([]);
    const links = await db.dataSource.query('SELECT COUNT(*) AS n FROM password_resets WHERE user_id = ?', [user.id]);
    expect(Number(links[0].n)).toBe(0);
  });
});
