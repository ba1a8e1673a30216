import {
  IssueInvitationUseCase,
  MAILER_CONSUMER,
  type InvitationSettings,
} from '../../../../src/application/invitations/issue-invitation.use-case';
import { MailDeliveryError } from '../../../../src/application/ports/mailer.port';
import { FakeSecretTokens, sha256Of } from '../../../support/fakes/fake-secret-tokens';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryInvitationRepository } from '../../../support/fakes/in-memory-invitation.repository';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryProcessedEventStore } from '../../../support/fakes/in-memory-processed-event.store';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { RecordingMailer } from '../../../support/fakes/recording-mailer';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { InvitationMother } from '../../../support/mothers/invitation.mother';
import { UserMother } from '../../../support/mothers/user.mother';

const PUBLIC_URL = 'https://access.example.com';
const SEVEN_DAYS = 7 * 86_400;
const NOW = '2026-02-14T09:30:00.250Z';

function setup(settings: Partial<InvitationSettings> = {}) {
  const clock = new FixedClock(NOW);
  const eventIds = new SequentialIdGenerator(0xe0);
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const invitations = new InMemoryInvitationRepository();
  const processedEvents = new InMemoryProcessedEventStore();
  const unitOfWork = new InMemoryUnitOfWork({ users, outbox, invitations, processedEvents });
  const tokens = new FakeSecretTokens();
  const mailer = new RecordingMailer();
  const issue = new IssueInvitationUseCase({
    unitOfWork,
    processedEventStore: processedEvents,
    secretTokens: tokens,
    mailer,
    clock,
    invitationSettings: { publicUrl: PUBLIC_URL, invitationTtlSeconds: SEVEN_DAYS, ...settings },
  });
  const invitee = UserMother.pending({ name: 'Grace Hopper', email: 'Grace@Example.com' });
  users.seed(invitee);
  return { issue, clock, users, invitations, processedEvents, tokens, mailer, invitee, nextEventId: () => eventIds.next() };
}

/** The token a mailed link carries, read the way the accept page reads it. */
function tokenIn(link: string): string {
  return new URL(link).searchParams.get('token')!;
}

describe('IssueInvitationUseCase', () => {
  describe('a pending user', () => {
    it('gets one mail, to its address and name, with a link to the accept page carrying the new token', async () => {
      const { issue, mailer, tokens, invitee, nextEventId } = setup();

      await expect(issue.execute({ eventId: nextEventId(), userId: invitee.id })).resolves.toBe('sent');

      expect(mailer.sent).toHaveLength(1);
      const [mail] = mailer.sent;
      expect(mail.to).toBe('Grace@Example.com');
      expect(mail.name).toBe('Grace Hopper');
      expect(tokens.generated).toHaveLength(1);
      expect(mail.link).toBe(`${PUBLIC_URL}/invitations/accept?token=${tokens.generated[0].token}`);
    });

    it('stores only the hash of the mailed token, for that user, expiring INVITATION_TTL after now, unused', async () => {
      const { issue, mailer, invitations, invitee, nextEventId } = setup();

      await issue.execute({ eventId: nextEventId(), userId: invitee.id });

      const token = tokenIn(mailer.sent[0].link);
      const stored = (await invitations.findByTokenHash(sha256Of(token)))!;
      expect(stored).toEqual({
        userId: invitee.id,
        tokenHash: sha256Of(token),
        createdAt: new Date(NOW),
        expiresAt: new Date('2026-02-21T09:30:00.250Z'),
      });
      expect(invitations.all()).toEqual([stored]);
      expect(JSON.stringify(invitations.all())).not.toContain(token);
      expect(mailer.sent[0].expiresAt).toEqual(stored.expiresAt);
    });

    it('takes the lifetime from the settings', async () => {
      const { issue, mailer, invitee, nextEventId } = setup({ invitationTtlSeconds: 90 });

      await issue.execute({ eventId: nextEventId(), userId: invitee.id });

      expect(mailer.sent[0].expiresAt.toISOString()).toBe('2026-02-14T09:31:30.250Z');
    });

    it('builds the link under a PUBLIC_URL that has a path', async () => {
      const { issue, mailer, tokens, invitee, nextEventId } = setup({ publicUrl: 'https://example.com/access' });

      await issue.execute({ eventId: nextEventId(), userId: invitee.id });

      expect(mailer.sent[0].link).toBe(`https://example.com/access/invitations/accept?token=${tokens.generated[0].token}`);
    });

    it('mails an invitee without a name with no name', async () => {
      const { issue, mailer, users, nextEventId } = setup();
      const nameless = UserMother.pending({ email: 'nameless@example.com' });
      users.seed(nameless);

      await issue.execute({ eventId: nextEventId(), userId: nameless.id });

      expect(mailer.sent).toHaveLength(1);
      expect(mailer.sent[0].to).toBe('nameless@example.com');
      expect(mailer.sent[0].name).toBeUndefined();
    });

    it('records the event as processed by the mailer, once the mail is accepted', async () => {
      const { issue, processedEvents, invitee, nextEventId } = setup();
      const eventId = nextEventId();

      await issue.execute({ eventId, userId: invitee.id });

      expect(processedEvents.all()).toEqual([{ consumer: MAILER_CONSUMER, eventId, at: new Date(NOW) }]);
    });
  });

  describe('the same event delivered again', () => {
    it('is a duplicate: no second mail, no new token, the first link still works', async () => {
      const { issue, mailer, tokens, invitations, invitee, nextEventId } = setup();
      const eventId = nextEventId();
      await issue.execute({ eventId, userId: invitee.id });
      const first = tokenIn(mailer.sent[0].link);

      await expect(issue.execute({ eventId, userId: invitee.id })).resolves.toBe('duplicate');

      expect(mailer.attempts).toBe(1);
      expect(tokens.generated).toHaveLength(1);
      expect((await invitations.findByTokenHash(sha256Of(first)))?.userId).toBe(invitee.id);
    });

    it('is a duplicate when recorded as processed earlier, whatever the user', async () => {
      const { issue, mailer, processedEvents, invitations, invitee } = setup();
      processedEvents.seed(MAILER_CONSUMER, 'handled-before');

      await expect(issue.execute({ eventId: 'handled-before', userId: invitee.id })).resolves.toBe('duplicate');

      expect(mailer.attempts).toBe(0);
      expect(invitations.count).toBe(0);
    });

    it('is not a duplicate when only another consumer processed it', async () => {
      const { issue, mailer, processedEvents, invitee } = setup();
      processedEvents.seed('some-other-consumer', 'e-1');

      await expect(issue.execute({ eventId: 'e-1', userId: invitee.id })).resolves.toBe('sent');

      expect(mailer.sent).toHaveLength(1);
    });
  });

  describe('a second event for the user (a resend)', () => {
    it('mails a new token and kills the old one: its hash is no longer found', async () => {
      const { issue, mailer, invitations, invitee, nextEventId } = setup();
      await issue.execute({ eventId: nextEventId(), userId: invitee.id });

      await expect(issue.execute({ eventId: nextEventId(), userId: invitee.id })).resolves.toBe('sent');

      expect(mailer.sent).toHaveLength(2);
      const [oldToken, newToken] = mailer.sent.map((m) => tokenIn(m.link));
      expect(newToken).not.toBe(oldToken);
      await expect(invitations.findByTokenHash(sha256Of(oldToken))).resolves.toBeNull();
      expect((await invitations.findByTokenHash(sha256Of(newToken)))?.userId).toBe(invitee.id);
      expect(invitations.count).toBe(1);
    });

    it('gives the new token a fresh lifetime from its own issue time', async () => {
      const { issue, clock, invitations, mailer, invitee, nextEventId } = setup();
      await issue.execute({ eventId: nextEventId(), userId: invitee.id });
      clock.advance(3 * 86_400_000);

      await issue.execute({ eventId: nextEventId(), userId: invitee.id });

      const stored = invitations.forUser(invitee.id)!;
      expect(stored.createdAt.toISOString()).toBe('2026-02-17T09:30:00.250Z');
      expect(stored.expiresAt.toISOString()).toBe('2026-02-24T09:30:00.250Z');
      expect(mailer.sent[1].expiresAt).toEqual(stored.expiresAt);
    });
  });

  describe('a user that is no longer pending', () => {
    it.each([
      ['gone (revoked)', false],
      ['joined', true],
    ])('when %s: not-pending, no mail, no token, and the event is recorded as processed', async (_label, joined) => {
      const { issue, users, mailer, tokens, invitations, processedEvents, nextEventId } = setup();
      const joinedUser = UserMother.joined();
      if (joined) users.seed(joinedUser);
      const userId = joined ? joinedUser.id : '0000ffff-0000-7000-8000-000000000000';
      const eventId = nextEventId();

      await expect(issue.execute({ eventId, userId })).resolves.toBe('not-pending');

      expect(mailer.attempts).toBe(0);
      expect(tokens.generated).toHaveLength(0);
      expect(invitations.count).toBe(0);
      expect(processedEvents.isRecorded(MAILER_CONSUMER, eventId)).toBe(true);
      await expect(issue.execute({ eventId, userId })).resolves.toBe('duplicate');
    });

    it('leaves the used invitation of a joined user as it was', async () => {
      const { issue, users, invitations, nextEventId } = setup();
      const joined = UserMother.joined();
      users.seed(joined);
      const used = InvitationMother.used(joined.id);
      invitations.seed(used.invitation);

      await expect(issue.execute({ eventId: nextEventId(), userId: joined.id })).resolves.toBe('not-pending');

      expect(invitations.all()).toEqual([used.invitation]);
    });
  });

  describe('a mail server that fails', () => {
    it.each([
      ['temporarily', 'temporary', false],
      ['permanently', 'permanent', true],
    ] as const)(
      'when it fails %s: the MailDeliveryError propagates, the event is not recorded, but the token row was replaced',
      async (_label, kind, permanent) => {
        const { issue, mailer, invitations, processedEvents, tokens, invitee, nextEventId } = setup();
        const old = InvitationMother.valid(invitee.id);
        invitations.seed(old.invitation);
        mailer.failNext(1, kind);
        const eventId = nextEventId();

        const error = await issue.execute({ eventId, userId: invitee.id }).catch((e: unknown) => e);

        expect(error).toBeInstanceOf(MailDeliveryError);
        expect((error as MailDeliveryError).permanent).toBe(permanent);
        expect(mailer.sent).toEqual([]);
        expect(mailer.failed).toHaveLength(1);
        expect(processedEvents.isRecorded(MAILER_CONSUMER, eventId)).toBe(false);
        expect(processedEvents.count).toBe(0);
        await expect(invitations.findByTokenHash(old.invitation.tokenHash)).resolves.toBeNull();
        expect(invitations.forUser(invitee.id)?.tokenHash).toBe(tokens.generated[0].hash);
      },
    );

    it('sends on a retry of the same event, with a link that works, and only then records the event', async () => {
      const { issue, mailer, invitations, processedEvents, invitee, nextEventId } = setup();
      mailer.failNext(1, 'temporary');
      const eventId = nextEventId();
      await expect(issue.execute({ eventId, userId: invitee.id })).rejects.toBeInstanceOf(MailDeliveryError);

      await expect(issue.execute({ eventId, userId: invitee.id })).resolves.toBe('sent');

      expect(mailer.sent).toHaveLength(1);
      const token = tokenIn(mailer.sent[0].link);
      expect((await invitations.findByTokenHash(sha256Of(token)))?.userId).toBe(invitee.id);
      expect(invitations.count).toBe(1);
      expect(processedEvents.isRecorded(MAILER_CONSUMER, eventId)).toBe(true);
      await expect(issue.execute({ eventId, userId: invitee.id })).resolves.toBe('duplicate');
      expect(mailer.attempts).toBe(2);
    });
  });
});
