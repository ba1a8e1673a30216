import { createTransport, type Transporter } from 'nodemailer';
import type { InvitationMail, Mailer, PasswordResetMail, PasswordResetMailer } from '../../application/ports/mailer.port';
import type { Logger } from '../logging/logger';
import { invitationMessage } from './invitation-mail.template';
import { passwordResetMessage } from './password-reset-mail.template';
import { scrubSecrets, smtpCredentialForms, toMailDeliveryError } from './smtp-delivery-error';

export interface NodemailerMailerOptions {
  /** `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  smtpUrl: string;
  /** The From of every mail (MAIL_FROM). */
  from: string;
  logger: Logger;
  productName?: string;
  /** One pooled set of connections reused across mails (default) or a connection per mail. */
  pool?: boolean;
  /** Default 5 (nodemailer's own): the mailer has several mails in flight per partition (MAILER_IN_FLIGHT). */
  maxConnections?: number;
  /** Default 10 s each; the socket (idle in a command) 60 s. */
  connectionTimeoutMs?: number;
  greetingTimeoutMs?: number;
  socketTimeoutMs?: number;
}

/** Query parameters of SMTP_URL passed on to nodemailer; anything else is ignored. */
const URL_OPTIONS = {
  boolean: ['requireTLS', 'ignoreTLS', 'opportunisticTLS'],
  string: ['name'],
} as const;

interface SmtpConnection {
  host: string;
  port?: number;
  secure: boolean;
  auth?: { user: string; pass: string };
  requireTLS?: boolean;
  ignoreTLS?: boolean;
  opportunisticTLS?: boolean;
  name?: string;
  tls?: { rejectUnauthorized?: boolean; servername?: string };
}

/** Parses SMTP_URL; the credentials are percent-decoded, so a password may hold `@` or `:` as %40, %3A. */
export function parseSmtpUrl(smtpUrl: string): SmtpConnection {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new Error('SMTP_URL is not a valid URL (expected smtp://user:pass@host:port or smtps://…)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_URL scheme "${url.protocol}" is not smtp: or smtps:`);
  if (!url.hostname) throw new Error('SMTP_URL has no host');
  const connection: SmtpConnection = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : undefined,
    secure: url.protocol === 'smtps:',
  };
  if (url.username || url.password) {
    connection.auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  }
  for (const key of URL_OPTIONS.boolean) {
    const value = url.searchParams.get(key);
    if (value !== null) connection[key] = value === 'true' || value === '1';
  }
  for (const key of URL_OPTIONS.string) {
    const value = url.searchParams.get(key);
    if (value) connection[key] = value;
  }
  const rejectUnauthorized = url.searchParams.get('tls.rejectUnauthorized');
  const servername = url.searchParams.get('tls.servername');
  if (rejectUnauthorized !== null || servername) {
    connection.tls = {
      ...(rejectUnauthorized !== null ? { rejectUnauthorized: !(rejectUnauthorized === 'false' || rejectUnauthorized === '0') } : {}),
      ...(servername ? { servername } : {}),
    };
  }
  return connection;
}

/**
 * Sends invitation mails through an SMTP server (SMTP_URL). Failures become MailDeliveryError,
 * permanent for a 5xx answer to the message or a refused recipient, temporary otherwise (see
 * smtp-delivery-error.ts). Neither the SMTP password nor the invitation token ever reaches an
 * error message or a log line: the link is only in the mail body.
 */
export class NodemailerMailer implements Mailer, PasswordResetMailer {
  private readonly transport: Transporter;
  /** The password and its AUTH encodings: never in a log line or an error (smtpCredentialForms). */
  private readonly credentials: string[];
  private readonly from: string;
  private readonly logger: Logger;
  private readonly productName: string | undefined;

  constructor(options: NodemailerMailerOptions) {
    const connection = parseSmtpUrl(options.smtpUrl);
    this.credentials = smtpCredentialForms(connection.auth);
    this.from = options.from;
    this.productName = options.productName;
    this.logger = options.logger.child({ component: 'smtp-mailer' });
    const timeouts = {
      connectionTimeout: options.connectionTimeoutMs ?? 10_000,
      greetingTimeout: options.greetingTimeoutMs ?? 10_000,
      socketTimeout: options.socketTimeoutMs ?? 60_000,
    };
    this.transport =
      options.pool === false
        ? createTransport({ ...connection, ...timeouts, logger: false, debug: false })
        : createTransport({
            ...connection,
            ...timeouts,
            pool: true,
            maxConnections: options.maxConnections ?? 5,
            // A connection lost mid-message fails the send: the caller's retry decides, with its
            // backoff and its idempotency, rather than a silent requeue inside the pool.
            maxRequeues: 0,
            logger: false,
            debug: false,
          });
    this.logger.info(
      { host: connection.host, port: connection.port, secure: connection.secure, pooled: options.pool !== false },
      'SMTP mailer configured',
    );
  }

  async sendInvitation(mail: InvitationMail): Promise<void> {
    await this.send(mail, invitationMessage(mail, this.from, { productName: this.productName }), 'invitation');
  }

  async sendPasswordReset(mail: PasswordResetMail): Promise<void> {
    await this.send(mail, passwordResetMessage(mail, this.from, { productName: this.productName }), 'password-reset');
  }

  private async send(mail: InvitationMail, message: ReturnType<typeof invitationMessage>, kind: string): Promise<void> {
    const token = tokenOf(mail.link);
    try {
      const info = await this.transport.sendMail(message);
      this.logger.debug(
        { messageId: info.messageId, response: scrubSecrets(String(info.response ?? ''), [...this.credentials, token]) },
        `${kind} mail accepted by the SMTP server`,
      );
    } catch (error) {
      throw toMailDeliveryError(error, [...this.credentials, token]);
    }
  }

  /** Connects and authenticates once; rejects with a MailDeliveryError (no secret in it) when it cannot. */
  async verify(): Promise<void> {
    try {
      await this.transport.verify();
    } catch (error) {
      throw toMailDeliveryError(error, this.credentials);
    }
  }

  /** Closes the pooled connections; a mail being delivered finishes first. */
  async close(): Promise<void> {
    this.transport.close();
  }
}

function tokenOf(link: string): string | undefined {
  try {
    return new URL(link).searchParams.get('token') ?? undefined;
  } catch {
    return undefined;
  }
}
