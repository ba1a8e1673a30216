import { handleMailEvent, isTemporaryFailure, MAIL_EVENT_MAX_AGE_MS } from '../../../src/infrastructure/messaging/consumer/mail-event-handler';

const USER = '0198c0de-0000-7000-8000-000000000001';
const EVENT = '0198c0de-0000-7000-8000-0000000000e1';

const cloudEvent = (type: string) => ({ specversion: '1.0', id: EVENT, type, source: '/access-control', subject: USER, data: { user_id: USER } });

function issuers() {
  const calls: string[] = [];
  return {
    calls,
    issueInvitation: { execute: async (input: { eventId: string; userId: string }) => (calls.push(`invitation ${input.eventId} ${input.userId}`), 'sent' as const) },
    issuePasswordReset: { execute: async (input: { eventId: string; userId: string }) => (calls.push(`reset ${input.eventId} ${input.userId}`), 'sent' as const) },
  };
}

/** The mailer's one handling for both paths (Kafka worker, in-process bus): each mail event goes to its own use case (#10). */
describe('handleMailEvent dispatch', () => {
  it('hands PasswordResetRequested to the password-reset use case, and the invitation events to the invitation one', async () => {
    const { calls, issueInvitation, issuePasswordReset } = issuers();

    const reset = await handleMailEvent(cloudEvent('PasswordResetRequested'), issueInvitation, issuePasswordReset);
    await handleMailEvent(cloudEvent('UserInvited'), issueInvitation, issuePasswordReset);
    await handleMailEvent(cloudEvent('UserInvitationResent'), issueInvitation, issuePasswordReset);

    expect(reset).toEqual({ action: 'handled', eventId: EVENT, userId: USER, type: 'PasswordResetRequested', outcome: 'sent' });
    expect(calls).toEqual([`reset ${EVENT} ${USER}`, `invitation ${EVENT} ${USER}`, `invitation ${EVENT} ${USER}`]);
  });

  it('treats a reset event on a path built without the reset use case as a temporary failure (retried, never dropped)', async () => {
    const { calls, issueInvitation } = issuers();

    const failure = await handleMailEvent(cloudEvent('PasswordResetRequested'), issueInvitation).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(Error);
    expect(isTemporaryFailure(failure)).toBe(true);
    expect(calls).toEqual([]);
  });

  it('sends no mail for an event older than 30 days (a backlog, a group moved back), and any younger one as before', async () => {
    const { calls, issueInvitation, issuePasswordReset } = issuers();
    const now = new Date('2026-12-06T12:00:00Z');
    const at = (ageMs: number) => ({ ...cloudEvent('UserInvited'), time: new Date(now.getTime() - ageMs).toISOString() });
    expect(await handleMailEvent(at(MAIL_EVENT_MAX_AGE_MS + 1), issueInvitation, issuePasswordReset, now)).toEqual({ action: 'ignored', eventId: EVENT, type: 'UserInvited', stale: true });
    expect(await handleMailEvent({ ...at(MAIL_EVENT_MAX_AGE_MS + 1), type: 'PasswordResetRequested' }, issueInvitation, issuePasswordReset, now)).toMatchObject({ action: 'ignored', stale: true });
    expect(calls).toEqual([]);
    // Younger, without a time, or with one that is no date: mailed.
    for (const event of [at(MAIL_EVENT_MAX_AGE_MS - 1000), at(0), cloudEvent('UserInvited'), { ...cloudEvent('UserInvited'), time: 'yesterday' }]) {
      expect(await handleMailEvent(event, issueInvitation, issuePasswordReset, now)).toMatchObject({ action: 'handled', outcome: 'sent' });
    }
    expect(calls).toHaveLength(4);
  });

  it('ignores events that ask for no mail', async () => {
    const { calls, issueInvitation, issuePasswordReset } = issuers();
    expect(await handleMailEvent(cloudEvent('UserJoined'), issueInvitation, issuePasswordReset)).toEqual({ action: 'ignored', eventId: EVENT, type: 'UserJoined' });
    expect(calls).toEqual([]);
  });
});
