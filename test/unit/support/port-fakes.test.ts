import { MailDeliveryError } from '../../../src/application/ports/mailer.port';
import { FakeSecretTokens, sha256Of } from '../../support/fakes/fake-secret-tokens';
import { RecordingMailer } from '../../support/fakes/recording-mailer';
import { FakePasswordHasher } from '../../support/fakes/fake-password-hasher';
import { FakeTokenIssuer } from '../../support/fakes/fake-token-issuer';
import { FixedClock } from '../../support/fakes/fixed-clock';
import { SequentialIdGenerator } from '../../support/fakes/sequential-id-generator';

// The use-case tests are only as good as these fakes: they must keep the ports' real contracts.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('FakePasswordHasher', () => {
  it('verifies a hash it made, and counts every verification, including those against no hash', async () => {
    const hasher = new FakePasswordHasher();
    const hash = await hasher.hash('correct horse battery staple');

    expect(hash).not.toContain('correct horse battery staple');
    await expect(hasher.verify('correct horse battery staple', hash)).resolves.toBe(true);
    await expect(hasher.verify('wrong', hash)).resolves.toBe(false);
    await expect(hasher.verify('correct horse battery staple', undefined)).resolves.toBe(false);
    expect(hasher.verifyCalls).toBe(3);
    expect(hasher.hashCalls).toBe(1);
  });
});

describe('FixedClock', () => {
  it('stands still until set or advanced, and hands out copies', () => {
    const clock = new FixedClock('2026-01-01T00:00:00.000Z');
    clock.now().setFullYear(1999);

    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    clock.advance(1500);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:01.500Z');
    clock.set('2030-06-01T12:00:00.000Z');
    expect(clock.now().toISOString()).toBe('2030-06-01T12:00:00.000Z');
  });
});

describe('SequentialIdGenerator', () => {
  it('hands out distinct UUID-shaped ids that sort in creation order', () => {
    const ids = new SequentialIdGenerator();
    const made = Array.from({ length: 300 }, () => ids.next());

    expect(made.every((id) => UUID.test(id))).toBe(true);
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(made);
  });

  it('keeps generators of different namespaces apart', () => {
    expect(new SequentialIdGenerator(1).next()).not.toBe(new SequentialIdGenerator(2).next());
  });
});

describe('FakeTokenIssuer', () => {
  it('issues a distinct token per call, expiring after its lifetime', async () => {
    const clock = new FixedClock('2026-01-01T00:00:00.000Z');
    const tokens = new FakeTokenIssuer(clock, 60);

    const a = await tokens.issue('user-1', 0);
    const b = await tokens.issue('user-1', 0);

    expect(a.token).not.toBe(b.token);
    expect(a.expiresAt.toISOString()).toBe('2026-01-01T00:01:00.000Z');
    expect(tokens.issued.map((t) => t.subject)).toEqual(['user-1', 'user-1']);
  });
});

describe('FakeSecretTokens', () => {
  it('hands out distinct, deterministic, URL-safe tokens whose hash is their real SHA-256', () => {
    const tokens = new FakeSecretTokens();
    const made = Array.from({ length: 12 }, () => tokens.generate());

    expect(new Set(made.map((m) => m.token)).size).toBe(12);
    const again = new FakeSecretTokens();
    expect(made.map((m) => m.token)).toEqual(made.map(() => again.generate().token));
    for (const { token, hash } of made) {
      expect(encodeURIComponent(token)).toBe(token);
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(hash).toBe(sha256Of(token));
      expect(tokens.hash(token)).toBe(hash);
    }
    expect(sha256Of('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(tokens.last).toEqual(made[11]);
    expect(tokens.hashCalls).toBe(12);
  });
});

describe('RecordingMailer', () => {
  const mail = { to: 'ada@example.com', name: 'Ada', link: 'https://x.test/a', expiresAt: new Date('2026-02-01T00:00:00.000Z') };

  it('records accepted mails in order, asynchronously', async () => {
    const mailer = new RecordingMailer();
    let settled = false;

    const sending = mailer.sendInvitation(mail).then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await sending;
    await mailer.sendInvitation({ ...mail, to: 'grace@example.com' });

    expect(mailer.sent).toEqual([mail, { ...mail, to: 'grace@example.com' }]);
    expect(mailer.attempts).toBe(2);
  });

  it.each([
    ['temporary', false],
    ['permanent', true],
  ] as const)('fails exactly the next N sends with a %s MailDeliveryError, recording none as sent', async (kind, permanent) => {
    const mailer = new RecordingMailer();
    mailer.failNext(2, kind);

    for (let i = 0; i < 2; i += 1) {
      const error = await mailer.sendInvitation(mail).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MailDeliveryError);
      expect((error as MailDeliveryError).permanent).toBe(permanent);
    }
    await mailer.sendInvitation(mail);

    expect(mailer.sent).toEqual([mail]);
    expect(mailer.failed.map((f) => f.error.permanent)).toEqual([permanent, permanent]);
    expect(mailer.attempts).toBe(3);
  });
});
