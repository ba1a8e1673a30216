export interface InvitationMail {
  to: string;
  name?: string;
  link: string;
  expiresAt: Date;
}

export interface Mailer {
  /** Resolves once the mail server has accepted the message. */
  sendInvitation(mail: InvitationMail): Promise<void>;
}

/** A delivery failure; `permanent` when retrying cannot help (a 5xx answer, a refused address). */
export class MailDeliveryError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'MailDeliveryError';
  }
}
