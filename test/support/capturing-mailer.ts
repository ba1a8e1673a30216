import type { InvitationMail, Mailer, PasswordResetMailer } from '../../src/application/ports/mailer.port';

/** Keeps the invitation mails the service would send, for end-to-end tests that follow the link. */
export class CapturingMailer implements Mailer, PasswordResetMailer {
  readonly sent: InvitationMail[] = [];

  async sendInvitation(mail: InvitationMail): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.sent.push(mail);
  }

  /** Password-reset mails are kept alike (their link names /password-reset). */
  async sendPasswordReset(mail: InvitationMail): Promise<void> {
    await this.sendInvitation(mail);
  }

  lastTo(address: string): InvitationMail {
    const mail = [...this.sent].reverse().find((m) => m.to.toLowerCase() === address.toLowerCase());
    if (!mail) throw new Error(`no mail sent to ${address}`);
    return mail;
  }

  /** The link token of the first mail to `address` after the `after`-th mail sent, waited for up to 10 s. */
  async tokenSentTo(address: string, after: number): Promise<string> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const mail = this.sent.slice(after).find((m) => m.to.toLowerCase() === address.toLowerCase());
      if (mail) return CapturingMailer.tokenOf(mail);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no invitation mail for ${address} within 10 s`);
  }

  static tokenOf(mail: InvitationMail): string {
    return new URL(mail.link).searchParams.get('token') ?? '';
  }
}
