import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { ConfirmPasswordResetUseCase } from '../../../../src/application/password-reset/confirm-password-reset.use-case';
import { InspectPasswordResetUseCase } from '../../../../src/application/password-reset/inspect-password-reset.use-case';
import { IssuePasswordResetUseCase } from '../../../../src/application/password-reset/issue-password-reset.use-case';
import { RequestPasswordResetUseCase } from '../../../../src/application/password-reset/request-password-reset.use-case';
import { MAILER_CONSUMER } from '../../../../src/application/invitations/issue-invitation.use-case';
import { ValidationError } from '../../../../src/domain/shared/domain-error';
import { PasswordResetExpiredError, PasswordResetNotFoundError, PasswordResetUsedError } from '../../../../src/domain/users/password-reset';
import { FakePasswordHasher, fakeHashOf } from '../../../support/fakes/fake-password-hasher';
import { FakeSecretTokens, sha256Of } from '../../../support/fakes/fake-secret-tokens';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryLoginAttempts } from '../../../support/fakes/in-memory-login-attempts';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryPasswordResetStore } from '../../../support/fakes/in-memory-password-reset.store';
import { InMemoryProcessedEventStore } from '../../../support/fakes/in-memory-processed-event.store';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { RecordingMailer } from '../../../support/fakes/recording-mailer';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { UserMother } from '../../../support/mothers/user.mother';

const PUBLIC_URL = 'https://access.example.com';
const NOW = '2026-02-14T09:30:00.250Z';
const NEW_PASSWORD = 'a brand new passphrase';
const LOCKOUT = { threshold: 3, baseWaitSeconds: 60, maxWaitSeconds: 240 };

function setup() {
  const clock = new FixedClock(NOW);
  const ids = new SequentialIdGenerator(0xa0);
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const passwordResets = new InMemoryPasswordResetStore();
  const processedEvents = new InMemoryProcessedEventStore();
  // Every closure runs twice (a deadlock retry): each use case must be right when it does.
  const unitOfWork = new InMemoryUnitOfWork({ users, outbox, passwordResets, processedEvents, retryEveryRun: true });
  const tokens = new FakeSecretTokens();
  const mailer = new RecordingMailer();
  const hasher = new FakePasswordHasher();
  const attempts = new InMemoryLoginAttempts();
  const { auditRecorder } = auditRecorderFor({ clock, auditTrail: unitOfWork.audit });
  const request = new RequestPasswordResetUseCase({ auditRecorder, unitOfWork, clock, idGenerator: ids });
  const issue = new IssuePasswordResetUseCase({
    unitOfWork,
    processedEventStore: processedEvents,
    secretTokens: tokens,
    passwordResetMailer: mailer,
    clock,
    passwordResetSettings: { publicUrl: PUBLIC_URL, passwordResetTtlSeconds: 3600 },
  });
  const inspect = new InspectPasswordResetUseCase({ unitOfWork, secretTokens: tokens, clock });
  const confirm = new ConfirmPasswordResetUseCase({ auditRecorder,
    unitOfWork,
    secretTokens: tokens,
    passwordHasher: hasher,
    commonPasswords: { includes: (p) => p === 'password12345' },
    loginAttempts: attempts,
    clock,
  });
  const ada = UserMother.joined({ email: 'Ada@Example.com', name: 'Ada Lovelace', username: 'ada' });
  users.seed(ada);
  /** Request, then let the mailer handle the event it recorded; answers the mailed token. */
  const mailedToken = async (email = 'ada@example.com') => {
    const before = outbox.events.length;
    await (await request.execute({ email })).record();
    const event = outbox.events[before];
    if (!event) throw new Error('no event recorded');
    await issue.execute({ eventId: event.id, userId: event.aggregateId });
    return new URL(mailer.sent.at(-1)!.link).searchParams.get('token')!;
  };
  /** An admin deactivates Ada, through a transaction as the use case does. */
  const deactivateAda = () =>
    unitOfWork.run(async (scope) => {
      const user = (await scope.users.findById(ada.id))!;
      user.deactivate({ by: ids.next(), now: clock.now(), newId: () => ids.next() });
      await scope.users.update(user);
    });
  return { deactivateAda, clock, users, outbox, passwordResets, processedEvents, tokens, mailer, hasher, attempts, request, issue, inspect, confirm, ada, mailedToken };
}

describe('RequestPasswordResetUseCase', () => {
  it('records PasswordResetRequested for an active user, matched case-insensitively, with no secret in it', async () => {
    const { request, outbox, ada, clock } = setup();

    await (await request.execute({ email: '  ADA@example.COM ' })).record();

    expect(outbox.events).toHaveLength(1);
    const [event] = outbox.events;
    expect(event).toMatchObject({ type: 'PasswordResetRequested', aggregateId: ada.id });
    expect(event.data).toEqual({ user_id: ada.id, email: 'Ada@Example.com', name: 'Ada Lovelace', requested_date: clock.now().toISOString() });
  });

  it.each([
    ['an unknown address', 'nobody@example.com'],
    ['a pending user', 'pending@example.com'],
    ['a deactivated user', 'gone@example.com'],
  ])('records nothing for %s, and answers alike', async (_why, email) => {
    const { request, outbox, users } = setup();
    users.seed(UserMother.pending({ email: 'pending@example.com' }), UserMother.deactivated({ email: 'gone@example.com' }));

    const accepted = await request.execute({ email });
    await expect(accepted.record()).resolves.toBeUndefined();

    expect(outbox.events).toEqual([]);
  });

  it('records nothing before `record` runs: the answer waits for no write', async () => {
    const { request, outbox } = setup();

    const accepted = await request.execute({ email: 'ada@example.com' });

    expect(outbox.events).toEqual([]);
    await accepted.record();
    expect(outbox.events).toHaveLength(1);
  });

  it('refuses a malformed address with a validation error', async () => {
    const { request } = setup();
    await expect(request.execute({ email: 'not an address' })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('IssuePasswordResetUseCase', () => {
  it('mails a link to the reset page and stores only the hash of its token, expiring PASSWORD_RESET_TTL after now', async () => {
    const { mailedToken, mailer, passwordResets, ada } = setup();

    const token = await mailedToken();

    expect(mailer.sent).toHaveLength(1);
    expect(mailer.sent[0]).toMatchObject({ to: 'Ada@Example.com', name: 'Ada Lovelace', link: `${PUBLIC_URL}/password-reset?token=${token}` });
    expect(passwordResets.all()).toEqual([
      { userId: ada.id, tokenHash: sha256Of(token), createdAt: new Date(NOW), expiresAt: new Date('2026-02-14T10:30:00.250Z') },
    ]);
    expect(JSON.stringify(passwordResets.all())).not.toContain(token);
  });

  it('sends nothing for an event handled before', async () => {
    const { request, issue, outbox, mailer, processedEvents } = setup();
    await (await request.execute({ email: 'ada@example.com' })).record();
    const [event] = outbox.events;

    await expect(issue.execute({ eventId: event.id, userId: event.aggregateId })).resolves.toBe('sent');
    await expect(issue.execute({ eventId: event.id, userId: event.aggregateId })).resolves.toBe('duplicate');

    expect(mailer.sent).toHaveLength(1);
    expect(await processedEvents.has(MAILER_CONSUMER, event.id)).toBe(true);
  });

  it('sends nothing to a user deactivated since the request, and records the event as handled', async () => {
    const { request, issue, outbox, mailer, deactivateAda, ada } = setup();
    await (await request.execute({ email: 'ada@example.com' })).record();
    await deactivateAda();
    const [event] = outbox.events;

    await expect(issue.execute({ eventId: event.id, userId: ada.id })).resolves.toBe('not-active');
    expect(mailer.sent).toEqual([]);
  });

  it('a newer request kills the older link', async () => {
    const { mailedToken, confirm, inspect } = setup();
    const older = await mailedToken();
    const newer = await mailedToken();

    expect(newer).not.toBe(older);
    expect(await inspect.execute(older)).toEqual({ status: 'unknown' });
    await expect(confirm.execute({ token: older, password: NEW_PASSWORD })).rejects.toBeInstanceOf(PasswordResetNotFoundError);
    await expect(confirm.execute({ token: newer, password: NEW_PASSWORD })).resolves.toEqual({ userId: expect.any(String) });
  });
});

describe('InspectPasswordResetUseCase', () => {
  it('shows a valid link with the address and expiry, and consumes nothing', async () => {
    const { mailedToken, inspect, passwordResets } = setup();
    const token = await mailedToken();

    const view = await inspect.execute(token);
    await inspect.execute(token);

    expect(view).toEqual({ status: 'valid', email: 'Ada@Example.com', expiresAt: new Date('2026-02-14T10:30:00.250Z') });
    expect(passwordResets.all()[0].usedAt).toBeUndefined();
  });

  it('says expired after PASSWORD_RESET_TTL, unknown for a token nobody has', async () => {
    const { mailedToken, inspect, clock } = setup();
    const token = await mailedToken();
    clock.advance(3600 * 1000);

    expect((await inspect.execute(token)).status).toBe('expired');
    expect(await inspect.execute('no-such-token')).toEqual({ status: 'unknown' });
    expect(await inspect.execute('')).toEqual({ status: 'unknown' });
  });
});

describe('ConfirmPasswordResetUseCase', () => {
  it('sets the password, bumps the token version once, uses the token up and clears the lockout', async () => {
    const { mailedToken, confirm, users, passwordResets, attempts, ada, clock } = setup();
    const token = await mailedToken();
    for (let i = 0; i < LOCKOUT.threshold; i++) {
      await attempts.claim('ada', clock.now(), LOCKOUT);
      await attempts.failed('ada', clock.now(), LOCKOUT);
    }
    expect(attempts.counters('ada').lockedUntil).not.toBeNull();

    await expect(confirm.execute({ token, password: NEW_PASSWORD })).resolves.toEqual({ userId: ada.id });

    const stored = (await users.findById(ada.id))!;
    expect(stored.passwordHash).toBe(fakeHashOf(NEW_PASSWORD));
    expect(stored.tokenVersion).toBe(ada.tokenVersion + 1);
    expect(passwordResets.all()[0].usedAt).toEqual(new Date(NOW));
    expect(attempts.counters('ada')).toEqual({ failures: 0, lockedUntil: null, lockouts: 0 });
  });

  it('works once: a second confirmation is PASSWORD_RESET_USED and changes nothing', async () => {
    const { mailedToken, confirm, users, ada } = setup();
    const token = await mailedToken();
    await confirm.execute({ token, password: NEW_PASSWORD });

    await expect(confirm.execute({ token, password: 'yet another passphrase' })).rejects.toBeInstanceOf(PasswordResetUsedError);
    expect((await users.findById(ada.id))!.passwordHash).toBe(fakeHashOf(NEW_PASSWORD));
  });

  it('refuses an expired link, an unknown token, and a user deactivated since', async () => {
    const { mailedToken, confirm, clock, deactivateAda } = setup();
    const token = await mailedToken();
    await expect(confirm.execute({ token: 'nope', password: NEW_PASSWORD })).rejects.toBeInstanceOf(PasswordResetNotFoundError);
    await deactivateAda();
    await expect(confirm.execute({ token, password: NEW_PASSWORD })).rejects.toBeInstanceOf(PasswordResetNotFoundError);
    clock.advance(3600 * 1000);
    await expect(confirm.execute({ token, password: NEW_PASSWORD })).rejects.toBeInstanceOf(PasswordResetExpiredError);
  });

  it('refuses a password that is the account\'s own e-mail address, and keeps the token', async () => {
    const { mailedToken, confirm, passwordResets } = setup();
    const token = await mailedToken();

    const error = await confirm.execute({ token, password: 'ADA@example.com' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems).toEqual([{ field: 'password', message: 'must not be your username or e-mail address' }]);
    expect(passwordResets.all()[0].usedAt).toBeUndefined();
  });

  it('applies the password policy of accept (too short, common) before any hashing, and keeps the token', async () => {
    const { mailedToken, confirm, hasher, passwordResets } = setup();
    const token = await mailedToken();
    const hashesBefore = hasher.hashCalls;

    await expect(confirm.execute({ token, password: 'short' })).rejects.toBeInstanceOf(ValidationError);
    await expect(confirm.execute({ token, password: 'password12345' })).rejects.toBeInstanceOf(ValidationError);

    expect(hasher.hashCalls).toBe(hashesBefore);
    expect(passwordResets.all()[0].usedAt).toBeUndefined();
  });
});
