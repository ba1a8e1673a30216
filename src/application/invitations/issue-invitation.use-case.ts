import type { Clock } from '../ports/clock.port';
import type { Mailer } from '../ports/mailer.port';
import type { ProcessedEventStore } from '../ports/processed-event-store.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';

export const MAILER_CONSUMER = 'mailer';

export interface IssueInvitationInput {
  /** The UserInvited or UserInvitationResent event that asks for the mail. */
  eventId: string;
  userId: string;
}

export type IssueInvitationOutcome = 'sent' | 'duplicate' | 'not-pending';

export interface InvitationSettings {
  publicUrl: string;
  invitationTtlSeconds: number;
}

/**
 * Issues a fresh single-use token for a pending user and mails the link. Idempotent per event:
 * an event handled before sends nothing. The only duplicate possible is a crash after the mail
 * server accepted the mail and before the event was recorded as handled.
 */
export class IssueInvitationUseCase {
  private readonly unitOfWork: UnitOfWork;
  private readonly processedEvents: ProcessedEventStore;
  private readonly tokens: SecretTokens;
  private readonly mailer: Mailer;
  private readonly clock: Clock;
  private readonly settings: InvitationSettings;

  constructor(deps: {
    unitOfWork: UnitOfWork;
    /** Outside any transaction: the record after the mail is a write of its own. */
    processedEventStore: ProcessedEventStore;
    secretTokens: SecretTokens;
    mailer: Mailer;
    clock: Clock;
    invitationSettings: InvitationSettings;
  }) {
    this.unitOfWork = deps.unitOfWork;
    this.processedEvents = deps.processedEventStore;
    this.tokens = deps.secretTokens;
    this.mailer = deps.mailer;
    this.clock = deps.clock;
    this.settings = deps.invitationSettings;
  }

  async execute({ eventId, userId }: IssueInvitationInput): Promise<IssueInvitationOutcome> {
    const now = this.clock.now();
    const prepared = await this.unitOfWork.run(async ({ users, processedEvents, invitations }) => {
      if (await processedEvents.has(MAILER_CONSUMER, eventId)) return 'duplicate' as const;
      // A locking read, as the acceptance's: an acceptance in flight commits first, and then the user reads joined. A
      // plain read saw the invitee pending, and the new link overwrote the used one once the acceptance let its row
      // go: a joined user was mailed a link to join again (review I).
      const user = await users.findForChange(userId);
      if (!user || user.status !== 'pending') {
        // Revoked, deleted, deactivated or joined before the mail went out: nothing to send for this event.
        await processedEvents.record(MAILER_CONSUMER, eventId, now);
        return 'not-pending' as const;
      }
      const { token, hash } = this.tokens.generate();
      const invitation = {
        userId,
        tokenHash: hash,
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.settings.invitationTtlSeconds * 1000),
      };
      await invitations.replaceForUser(invitation);
      return { token, user, invitation };
    });
    if (prepared === 'duplicate' || prepared === 'not-pending') return prepared;

    await this.mailer.sendInvitation({
      to: prepared.user.email,
      name: prepared.user.name,
      link: `${this.settings.publicUrl}/invitations/accept?token=${encodeURIComponent(prepared.token)}`,
      expiresAt: prepared.invitation.expiresAt,
    });
    // A single write: no transaction needed around it.
    await this.processedEvents.record(MAILER_CONSUMER, eventId, this.clock.now());
    return 'sent';
  }
}
