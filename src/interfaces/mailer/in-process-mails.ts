import type { Logger } from '../../infrastructure/logging/logger';
import type { CloudEvent, InProcessEventBus } from '../../infrastructure/messaging/cloud-event';
import { handleMailEvent, type IssueInvitation, type IssuePasswordReset, safeErrorText, STALE_MAIL_EVENT } from '../../infrastructure/messaging/consumer/mail-event-handler';

/**
 * The embedded default's mailer (no KAFKA_BROKERS): the same handling as the Kafka worker,
 * subscribed to the in-process bus.
 *
 * - A temporary failure is thrown: the publish fails, the outbox keeps the event and the relay
 *   publishes it again later; the use case's idempotency (per event id) prevents a second mail.
 * - A permanent failure or a malformed event cannot succeed on a retry, and there is no
 *   dead-letter topic here: it is logged (at error, as "dead-lettered") and swallowed, so it
 *   does not block the outbox.
 *
 * Returns the unsubscribe function; call it before the bus closes.
 */
export function subscribeMails(
  bus: Pick<InProcessEventBus, 'subscribe'>,
  deps: { issueInvitation: IssueInvitation; issuePasswordReset?: IssuePasswordReset; logger: Logger },
): () => void {
  const logger = deps.logger.child({ component: 'in-process-mails' });
  return bus.subscribe(async (event: CloudEvent) => {
    let outcome;
    try {
      outcome = await handleMailEvent(event, deps.issueInvitation, deps.issuePasswordReset);
    } catch (error) {
      logger.warn({ eventId: event?.id, type: event?.type, reason: safeErrorText(error) }, 'temporary failure; the event will be published again');
      throw error;
    }
    switch (outcome.action) {
      case 'handled':
        logger.info({ eventId: outcome.eventId, userId: outcome.userId, type: outcome.type, outcome: outcome.outcome }, 'invitation mail event handled');
        break;
      case 'dead-letter':
        logger.error(
          { eventId: outcome.eventId, userId: outcome.userId, type: outcome.type, reason: outcome.reason, error: outcome.error },
          'event dead-lettered (logged only: the in-process bus has no dead-letter topic)',
        );
        break;
      case 'ignored':
        if (outcome.stale) logger.warn({ eventId: outcome.eventId, type: outcome.type }, STALE_MAIL_EVENT);
        break;
    }
  });
}
