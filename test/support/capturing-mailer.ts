import type { InvitationMail, Mailer } from '../../src/application/ports/mailer.port';

/** Keeps the invitation mails the service would send, for end-to-end tests that follow the link. */
export class CapturingMailer implements Mailer {
  readonly sent: InvitationMail[] = [];

  async sendInvitation(mail: InvitationMail): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.sent.push(mail);
  }

  lastTo(address: string): InvitationMail {
    const mail = [...this.sent].reverse().find((m) => m.to.toLowerCase() === address.toLowerCase());
    if (!mail) throw new Error(`no mail sent to ${address}`);
    return mail;
  }

  static tokenOf(mail: InvitationMail): string {
    return new URL(mail.link).searchParams.get('token') ?? '';
  }
}
