import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTransport, type Transporter } from 'nodemailer';
import { type InvitationMail, type Mailer, MailDeliveryError, type PasswordResetMail, type PasswordResetMailer } from '../../application/ports/mailer.port';
import type { Clock } from '../../application/ports/clock.port';
import type { Logger } from '../logging/logger';
import { invitationMessage } from './invitation-mail.template';
import { passwordResetMessage } from './password-reset-mail.template';

export interface FileMailerOptions {
  /** DATA_DIR: mails go to `<dataDir>/mail`. */
  dataDir: string;
  from: string;
  logger: Logger;
  productName?: string;
  clock?: Clock;
}

/**
 * The embedded default's mailer (no SMTP_URL): each mail is written as an RFC 822 message
 * (`.eml`, CRLF line ends, built by nodemailer's stream transport, so any mail client opens it)
 * under `DATA_DIR/mail`, named `<UTC time>-<sequence>-<random>.eml` so the names sort by time.
 * The directory is private to the owner (0700, files 0600): each file holds a live token.
 */
export class FileMailer implements Mailer, PasswordResetMailer {
  readonly directory: string;
  private readonly transport: Transporter;
  private readonly from: string;
  private readonly logger: Logger;
  private readonly productName: string | undefined;
  private readonly clock: Clock;
  private sequence = 0;

  constructor(options: FileMailerOptions) {
    this.directory = path.join(options.dataDir, 'mail');
    this.from = options.from;
    this.logger = options.logger.child({ component: 'file-mailer' });
    this.productName = options.productName;
    this.clock = options.clock ?? { now: () => new Date() };
    this.transport = createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  }

  async sendInvitation(mail: InvitationMail): Promise<void> {
    await this.write(mail, invitationMessage(mail, this.from, { productName: this.productName }), 'invitation');
  }

  async sendPasswordReset(mail: PasswordResetMail): Promise<void> {
    await this.write(mail, passwordResetMessage(mail, this.from, { productName: this.productName }), 'password-reset');
  }

  private async write(mail: InvitationMail, built: ReturnType<typeof invitationMessage>, kind: string): Promise<void> {
    const now = this.clock.now();
    const file = path.join(this.directory, this.fileName(now));
    try {
      const info = await this.transport.sendMail({
        ...built,
        date: now,
      });
      const message = info.message as unknown;
      if (!Buffer.isBuffer(message)) throw new Error('the stream transport returned no message buffer');
      await mkdir(this.directory, { recursive: true, mode: 0o700 });
      // Written aside then renamed: a reader never sees half a file.
      const partial = `${file}.partial`;
      await writeFile(partial, message, { mode: 0o600, flag: 'wx' });
      await rename(partial, file);
    } catch (error) {
      // A full or unwritable disk is the operator's to fix; the event is retried meanwhile.
      const code = (error as { code?: string })?.code;
      throw new MailDeliveryError(`could not write the ${kind} mail under ${this.directory}${code ? ` (${code})` : ''}`, false);
    }
    // The one place a token reaches a log line, on purpose: PRODUCT.md asks the embedded default
    // (no SMTP_URL) to log the invitation link, so a developer trying the service can open it
    // without a mail client. With SMTP_URL set (NodemailerMailer) the link is never logged.
    // A reset link is not logged: it would let whoever reads the log take the account over (#10); the file has it.
    if (kind !== 'invitation') {
      this.logger.info({ file, expiresAt: mail.expiresAt.toISOString() }, `${kind} mail written to ${file}`);
      return;
    }
    this.logger.info({ file, link: mail.link, expiresAt: mail.expiresAt.toISOString() }, `${kind} mail written to ${file}; link: ${mail.link}`);
  }

  async close(): Promise<void> {
    this.transport.close();
  }

  private fileName(at: Date): string {
    const stamp = at.toISOString().replace(/[-:]/g, '').replace('.', ''); // 20260131T120000123Z
    this.sequence = (this.sequence + 1) % 1_000_000;
    return `${stamp}-${String(this.sequence).padStart(6, '0')}-${randomBytes(3).toString('hex')}.eml`;
  }
}
