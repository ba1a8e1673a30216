import { asClass, asFunction, asValue, type AwilixContainer, createContainer, InjectionMode } from 'awilix';
import { type InvitationSettings, IssueInvitationUseCase } from '../application/invitations/issue-invitation.use-case';
import type { Clock } from '../application/ports/clock.port';
import type { SecretTokens } from '../application/ports/secret-tokens.port';
import type { UnitOfWork } from '../application/ports/unit-of-work.port';
import type { Config } from './config/config';
import { RandomSecretTokens } from './crypto/random-secret-tokens';
import type { Logger } from './logging/logger';
import { MailDeliveryError, type Mailer, type PasswordResetMailer } from '../application/ports/mailer.port';
import { IssuePasswordResetUseCase, type PasswordResetSettings } from '../application/password-reset/issue-password-reset.use-case';
import { type ClosableMailer, createMailer } from './mail/create-mailer';
import { type PersistenceCradle, persistenceRegistrations, type Registrations, typeOrmUnitOfWork } from './persistence-registrations';
import { SystemClock } from './system/system-clock';

/** What mailing an invitation takes, registered alike by the api's root (embedded default) and the mailer's. */
export interface InvitationMailCradle {
  clock: Clock;
  secretTokens: SecretTokens;
  /** SMTP when SMTP_URL is set; otherwise `.eml` files under DATA_DIR/mail. A test's double need not close or verify. */
  mailer: Mailer & Partial<Pick<ClosableMailer, 'close' | 'verify'>>;
  invitationSettings: InvitationSettings;
  issueInvitation: IssueInvitationUseCase;
  /** The `mailer` itself when it sends reset mail too (SMTP and files do); a test's invitation-only double refuses. */
  passwordResetMailer: PasswordResetMailer;
  passwordResetSettings: PasswordResetSettings;
  issuePasswordReset: IssuePasswordResetUseCase;
}

export function invitationMailRegistrations(
  config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir' | 'publicUrl' | 'invitationTtlSeconds' | 'passwordResetTtlSeconds'>,
  logger: Logger,
): Registrations<InvitationMailCradle> {
  return {
    clock: asClass(SystemClock).singleton(),
    secretTokens: asClass(RandomSecretTokens).singleton(),
    mailer: asFunction(() => createMailer(config, logger))
      .singleton()
      .disposer((mailer) => mailer.close?.()),
    invitationSettings: asValue({ publicUrl: config.publicUrl, invitationTtlSeconds: config.invitationTtlSeconds }),
    issueInvitation: asClass(IssueInvitationUseCase).singleton(),
    passwordResetMailer: asFunction(({ mailer }: InvitationMailCradle) => passwordResetMailerOf(mailer)).singleton(),
    passwordResetSettings: asValue({ publicUrl: config.publicUrl, passwordResetTtlSeconds: config.passwordResetTtlSeconds }),
    issuePasswordReset: asClass(IssuePasswordResetUseCase).singleton(),
  };
}

function passwordResetMailerOf(mailer: Mailer & Partial<PasswordResetMailer>): PasswordResetMailer {
  if (typeof mailer.sendPasswordReset === 'function') return mailer as PasswordResetMailer;
  return {
    sendPasswordReset: async () => {
      throw new MailDeliveryError('this mailer sends no password-reset mail', true);
    },
  };
}

/** Everything the mailer process resolves: its database side and the invitation mail. No HTTP, no admin, no relay. */
export interface MailerCradle extends PersistenceCradle, InvitationMailCradle {
  config: Config;
  logger: Logger;
  unitOfWork: UnitOfWork;
}

export type MailerContainer = AwilixContainer<MailerCradle>;

/** The mailer process's one composition root (`npm run start:mailer`). */
export function buildMailerContainer(config: Config, logger: Logger): MailerContainer {
  const container = createContainer<MailerCradle>({ injectionMode: InjectionMode.PROXY, strict: true });
  const registrations: Registrations<MailerCradle> = {
    config: asValue(config),
    logger: asValue(logger),
    ...persistenceRegistrations(config),
    ...invitationMailRegistrations(config, logger),
    // Events a mail records (none today) reach Kafka through the api's relay, which polls the outbox.
    unitOfWork: asFunction((cradle: MailerCradle) => typeOrmUnitOfWork(cradle)).singleton(),
  };
  container.register(registrations);
  return container;
}
