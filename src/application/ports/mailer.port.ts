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

/** A password-reset mail: the same fields as an invitation's, another text. */
export type PasswordResetMail = InvitationMail;

/** Sends the password-reset mail (issue #10); the SMTP and file mailers implement both ports. */
export interface PasswordResetMailer {
  /** Resolves once the mail server has accepted the message. */
  sendPasswordReset(mail: PasswordResetMail): Promise<void>;
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
