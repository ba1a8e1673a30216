import { type InvitationMail, MailDeliveryError, type Mailer, type PasswordResetMailer } from '../../../src/application/ports/mailer.port';
import { ioBoundary } from './io-boundary';

export type MailFailure = 'temporary' | 'permanent';

/**
 * Records every invitation mail the "server" accepted, in order. Told to, it fails the next sends
 * with a MailDeliveryError (temporary or permanent); those attempts are recorded apart.
 */
export class RecordingMailer implements Mailer, PasswordResetMailer {
  private readonly accepted: InvitationMail[] = [];
  private readonly refused: { mail: InvitationMail; error: MailDeliveryError }[] = [];
  private failures: MailFailure[] = [];

  /** Password-reset mails go the same way (their link names /password-reset). */
  async sendPasswordReset(mail: InvitationMail): Promise<void> {
    await this.sendInvitation(mail);
  }

  async sendInvitation(mail: InvitationMail): Promise<void> {
    await ioBoundary();
    const recorded = copy(mail);
    const failure = this.failures.shift();
    if (failure !== undefined) {
      const error = new MailDeliveryError(
        failure === 'permanent' ? '550 mailbox unavailable' : '451 try again later',
        failure === 'permanent',
      );
      this.refused.push({ mail: recorded, error });
      throw error;
    }
    this.accepted.push(recorded);
  }

  /** Makes the next `count` sends fail (in addition to any failures armed already). */
  failNext(count: number, kind: MailFailure = 'temporary'): void {
    this.failures.push(...Array.from({ length: count }, () => kind));
  }

  /** Mails the server accepted, in order. */
  get sent(): InvitationMail[] {
    return this.accepted.map(copy);
  }

  /** Sends that failed, with the error each got. */
  get failed(): { mail: InvitationMail; error: MailDeliveryError }[] {
    return this.refused.map((f) => ({ mail: copy(f.mail), error: f.error }));
  }

  /** Every attempt, accepted or not. */
  get attempts(): number {
    return this.accepted.length + this.refused.length;
  }
}

function copy(mail: InvitationMail): InvitationMail {
  return { ...mail, expiresAt: new Date(mail.expiresAt) };
}
