import type { Mailer, PasswordResetMailer } from '../../application/ports/mailer.port';
import type { Config } from '../config/config';
import type { Logger } from '../logging/logger';
import { FileMailer } from './file-mailer';
import { NodemailerMailer } from './nodemailer-mailer';

export interface ClosableMailer extends Mailer, PasswordResetMailer {
  close(): Promise<void>;
  /** Whether the server takes us, asked once at start to say so early (SMTP only). */
  verify?(): Promise<void>;
}

/** SMTP when SMTP_URL is set; otherwise the embedded default, `.eml` files under DATA_DIR/mail. */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>, logger: Logger): ClosableMailer {
  return config.smtpUrl
    ? new NodemailerMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger })
    : new FileMailer({ dataDir: config.dataDir, from: config.mailFrom, logger });
}
