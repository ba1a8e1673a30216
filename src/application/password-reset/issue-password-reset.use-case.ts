import { MAILER_CONSUMER } from '../invitations/issue-invitation.use-case';
import type { Clock } from '../ports/clock.port';
import type { PasswordResetMailer } from '../ports/mailer.port';
import type { ProcessedEventStore } from '../ports/processed-event-store.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';

export interface IssuePasswordResetInput {
  /** The PasswordResetRequested event that asks for the mail. */
  eventId: string;
  userId: string;
}

export type IssuePasswordResetOutcome = 'sent' | 'duplicate' | 'not-active';

export interface PasswordResetSettings {
  publicUrl: string;
  passwordResetTtlSeconds: number;
}

/**
 * The mailer's side of a reset request, shaped like IssueInvitationUseCase: a fresh single-use token
 * (only its hash stored, any older link of the user dead) and the mail with the link. Idempotent per
 * event id: an event handled before sends nothing.
 */
export class IssuePasswordResetUseCase {
  private readonly unitOfWork: UnitOfWork;
  private readonly processedEvents: ProcessedEventStore;
  private readonly tokens: SecretTokens;
  private readonly mailer: PasswordResetMailer;
  private readonly clock: Clock;
  private readonly settings: PasswordResetSettings;

  constructor(deps: {
    unitOfWork: UnitOfWork;
    processedEventStore: ProcessedEventStore;
    secretTokens: SecretTokens;
    passwordResetMailer: PasswordResetMailer;
    clock: Clock;
    passwordResetSettings: PasswordResetSettings;
  }) {
    this.unitOfWork = deps.unitOfWork;
    this.processedEvents = deps.processedEventStore;
    this.tokens = deps.secretTokens;
    this.mailer = deps.passwordResetMailer;
    this.clock = deps.clock;
    this.settings = deps.passwordResetSettings;
  }

  async execute({ eventId, userId }: IssuePasswordResetInput): Promise<IssuePasswordResetOutcome> {
    const now = this.clock.now();
    const prepared = await this.unitOfWork.run(async ({ users, processedEvents, passwordResets }) => {
      if (await processedEvents.has(MAILER_CONSUMER, eventId)) return 'duplicate' as const;
      // A locking read, as a deactivation's: one in flight commits first, and the user then reads deactivated. A plain
      // read saw it active, and the link written after the deactivation ended the user's links came back alive with a
      // reactivation (review I's finding on invitations, the same here).
      const user = await users.findForChange(userId);
      if (!user || !user.isJoined || user.status !== 'active') {
        // Deactivated or deleted since the request: no link for this event.
        await processedEvents.record(MAILER_CONSUMER, eventId, now);
        return 'not-active' as const;
      }
      const { token, hash } = this.tokens.generate();
      const reset = {
        userId,
        tokenHash: hash,
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.settings.passwordResetTtlSeconds * 1000),
      };
      await passwordResets.replaceForUser(reset);
      return { token, user, reset };
    });
    if (prepared === 'duplicate' || prepared === 'not-active') return prepared;

    await this.mailer.sendPasswordReset({
      to: prepared.user.email,
      ...(prepared.user.name !== undefined ? { name: prepared.user.name } : {}),
      link: `${this.settings.publicUrl}/password-reset?token=${encodeURIComponent(prepared.token)}`,
      expiresAt: prepared.reset.expiresAt,
    });
    await this.processedEvents.record(MAILER_CONSUMER, eventId, this.clock.now());
    return 'sent';
  }
}
