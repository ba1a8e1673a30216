import type { IssueInvitationOutcome, IssueInvitationUseCase } from '../../../application/invitations/issue-invitation.use-case';
import type { IssuePasswordResetOutcome, IssuePasswordResetUseCase } from '../../../application/password-reset/issue-password-reset.use-case';
import { MailDeliveryError } from '../../../application/ports/mailer.port';
import { PASSWORD_RESET_REQUESTED } from '../../../domain/users/password-reset';
import { MAIL_EVENT_TYPES } from '../cloud-event';
import { describeError } from '../../logging/logger';

/**
 * The handling both mailer paths share (KafkaMailWorker and the in-process subscription,
 * src/interfaces/mailer/in-process-mails.ts): read a CloudEvent, ask IssueInvitationUseCase or
 * IssuePasswordResetUseCase for the mail its type asks for, and say what became of it. A temporary
 * failure is thrown; everything else is an outcome.
 */

export type DeadLetterReason = 'malformed-event' | 'permanent-delivery-failure';

export type MailEventOutcome =
  | { action: 'handled'; eventId: string; userId: string; type: string; outcome: IssueInvitationOutcome | IssuePasswordResetOutcome }
  | { action: 'ignored'; eventId?: string; type: string; /** A mail event older than MAIL_EVENT_MAX_AGE_MS: no mail. */ stale?: true }
  | { action: 'dead-letter'; reason: DeadLetterReason; error: string; eventId?: string; userId?: string; type?: string };

export type IssueInvitation = Pick<IssueInvitationUseCase, 'execute'>;
export type IssuePasswordReset = Pick<IssuePasswordResetUseCase, 'execute'>;

/** A message that can never be handled, however often it is retried. */
export class MalformedEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedEventError';
  }
}

// Event and user ids are UUIDs (stored in 36-character columns): anything else is refused up
// front rather than failing in the database on every retry.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A mail event older than this is not acted on (logged; an invitation can be resent). The record of the events handled
 * (processed_events) is kept as long and a day more (PROCESSED_EVENT_RETENTION_MS): a redelivered event either finds
 * its record or is too old to mail, so deleting records never sends a mail twice. Events reach the mailer within
 * seconds; only a backlog (Kafka away for weeks) or a consumer group moved back by hand brings older ones.
 */
export const MAIL_EVENT_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;
export const PROCESSED_EVENT_RETENTION_MS = MAIL_EVENT_MAX_AGE_MS + 24 * 60 * 60 * 1000;
/** The log line of a mail event too old to mail (both mailer paths). */
export const STALE_MAIL_EVENT = 'mail event older than 30 days: no mail sent (resend the invitation, or ask for a new reset link)';

export type MailRequest =
  | { kind: 'mail'; eventId: string; userId: string; type: string; /** The CloudEvent's `time`, when it has a readable one. */ occurredAt?: Date }
  | { kind: 'ignore'; eventId?: string; type: string };

/** The JSON of a Kafka message value, or a MalformedEventError. */
export function decodeEventJson(value: Buffer | string | null | undefined): unknown {
  if (value === null || value === undefined || value.length === 0) throw new MalformedEventError('the message has no value');
  try {
    return JSON.parse(typeof value === 'string' ? value : value.toString('utf8'));
  } catch {
    throw new MalformedEventError('the message value is not JSON');
  }
}

/** What a CloudEvent asks of the mailer; throws MalformedEventError when it is not a usable CloudEvent. */
export function readMailRequest(event: unknown): MailRequest {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new MalformedEventError('the event is not a JSON object');
  }
  const e = event as Record<string, unknown>;
  if (e.specversion !== '1.0') throw new MalformedEventError('not a CloudEvent: specversion is not "1.0"');
  if (typeof e.type !== 'string' || e.type === '') throw new MalformedEventError('not a CloudEvent: type is missing');
  const eventId = typeof e.id === 'string' && e.id !== '' ? e.id : undefined;
  if (!MAIL_EVENT_TYPES.includes(e.type)) return { kind: 'ignore', eventId, type: e.type };

  if (eventId === undefined) throw new MalformedEventError(`${e.type}: id is missing`);
  if (!UUID.test(eventId)) throw new MalformedEventError(`${e.type}: id is not a UUID`);
  if (typeof e.source !== 'string' || e.source === '') throw new MalformedEventError(`${e.type}: source is missing`);
  const data = typeof e.data === 'object' && e.data !== null ? (e.data as Record<string, unknown>) : {};
  const userId = typeof e.subject === 'string' && e.subject !== '' ? e.subject : data.user_id;
  if (typeof userId !== 'string' || userId === '') throw new MalformedEventError(`${e.type}: subject and data.user_id are missing`);
  if (!UUID.test(userId)) throw new MalformedEventError(`${e.type}: the user id is not a UUID`);
  const occurredAt = typeof e.time === 'string' ? new Date(e.time) : undefined;
  return { kind: 'mail', eventId, userId, type: e.type, ...(occurredAt && Number.isFinite(occurredAt.getTime()) ? { occurredAt } : {}) };
}

/**
 * Handles one event. Resolves with what became of it; rejects only when a later attempt can
 * succeed (a temporary mail failure, the database away, …). The use case is idempotent per
 * event id, so a redelivered event sends no second mail.
 */
export async function handleMailEvent(
  event: unknown,
  issueInvitation: IssueInvitation,
  issuePasswordReset?: IssuePasswordReset,
  now: Date = new Date(),
): Promise<MailEventOutcome> {
  let request: MailRequest;
  try {
    request = readMailRequest(event);
  } catch (error) {
    if (error instanceof MalformedEventError) {
      const e = event as { id?: unknown; type?: unknown } | null;
      return {
        action: 'dead-letter',
        reason: 'malformed-event',
        error: error.message,
        eventId: typeof e?.id === 'string' ? e.id.slice(0, 64) : undefined,
        type: typeof e?.type === 'string' ? e.type.slice(0, 64) : undefined,
      };
    }
    throw error;
  }
  if (request.kind === 'ignore') return { action: 'ignored', eventId: request.eventId, type: request.type };

  const { eventId, userId, type, occurredAt } = request;
  if (occurredAt && now.getTime() - occurredAt.getTime() > MAIL_EVENT_MAX_AGE_MS) return { action: 'ignored', eventId, type, stale: true };
  try {
    let outcome: IssueInvitationOutcome | IssuePasswordResetOutcome;
    if (type === PASSWORD_RESET_REQUESTED) {
      // A path built without it retries (then dead-letters) rather than dropping the mail unsaid.
      if (!issuePasswordReset) throw new Error('this mailer path handles no PasswordResetRequested');
      outcome = await issuePasswordReset.execute({ eventId, userId });
    } else {
      outcome = await issueInvitation.execute({ eventId, userId });
    }
    return { action: 'handled', eventId, userId, type, outcome };
  } catch (error) {
    if (error instanceof MailDeliveryError && error.permanent) {
      return { action: 'dead-letter', reason: 'permanent-delivery-failure', error: safeErrorText(error), eventId, userId, type };
    }
    throw error;
  }
}

/**
 * A failure as a log line or a header may carry it. A MailDeliveryError's message is built by the
 * mail adapters without secrets; anything else (a database or driver error) is reduced to its
 * code, or to its first 200 characters with any URL credentials masked.
 */
export function safeErrorText(error: unknown): string {
  if (error instanceof MailDeliveryError || error instanceof MalformedEventError) return error.message.slice(0, 500);
  return describeError(error);
}

/** A failure that can succeed later: retried by the worker, rethrown to the bus. */
export function isTemporaryFailure(error: unknown): boolean {
  return !(error instanceof MailDeliveryError && error.permanent) && !(error instanceof MalformedEventError);
}
