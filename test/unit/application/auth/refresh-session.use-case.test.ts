import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { RefreshSessionUseCase } from '../../../../src/application/auth/refresh-session.use-case';
import { InvalidRefreshTokenError } from '../../../../src/application/auth/session.errors';
import { fakeSessionIssuer, REFRESH_POLICY } from '../../../support/fakes/fake-session-issuer';
import { FakeTokenIssuer } from '../../../support/fakes/fake-token-issuer';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { UserMother } from '../../../support/mothers/user.mother';

const DAY = 86_400_000;

function setup(policy = REFRESH_POLICY) {
  const clock = new FixedClock();
  const users = new InMemoryUserRepository();
  const tokens = new FakeTokenIssuer(clock);
  const { sessionIssuer, refreshTokenStore, secretTokens } = fakeSessionIssuer(tokens, clock, { policy });
  const { auditRecorder, auditTrail } = auditRecorderFor();
  const refresh = new RefreshSessionUseCase({ auditRecorder, userRepository: users, refreshTokenStore, secretTokens, sessionIssuer, clock });
  const ada = UserMother.joined({ username: 'ada' });
  users.seed(ada);
  const signIn = () => sessionIssuer.start(ada.id, 0);
  return { clock, users, tokens, store: refreshTokenStore, secretTokens, refresh, ada, signIn, auditTrail };
}

const invalid = expect.any(InvalidRefreshTokenError);

describe('RefreshSessionUseCase', () => {
  it('exchanges a refresh token for a new access token and the next refresh token of its family, stored only as hashes', async () => {
    const { refresh, signIn, store, tokens, ada, secretTokens } = setup();
    const first = await signIn();

    const next = await refresh.execute({ refreshToken: first.refreshToken });

    expect(next.refreshToken).not.toBe(first.refreshToken);
    expect(next.accessToken).toBe(tokens.issued.at(-1)!.token);
    expect(tokens.issued.at(-1)).toMatchObject({ subject: ada.id, tokenVersion: 0 });
    const rows = store.all();
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.familyId)).size).toBe(1);
    expect(rows.map((r) => r.tokenHash).sort()).toEqual([secretTokens.hash(first.refreshToken), secretTokens.hash(next.refreshToken)].sort());
    expect(JSON.stringify(rows)).not.toContain(first.refreshToken);
    expect(rows.find((r) => r.tokenHash === secretTokens.hash(first.refreshToken))!.usedAt).not.toBeNull();
  });

  it('keeps the family’s absolute end across rotations and refuses once it has passed, however recently used', async () => {
    const { refresh, signIn, clock } = setup();
    let token = (await signIn()).refreshToken;
    for (let day = 0; day < 29; day++) {
      clock.advance(DAY);
      token = (await refresh.execute({ refreshToken: token })).refreshToken;
    }
    clock.advance(DAY);
    await expect(refresh.execute({ refreshToken: token })).rejects.toEqual(invalid);
  });

  it('refuses a token unused for the idle lifetime, and takes one just before it', async () => {
    const { refresh, signIn, clock } = setup();
    const a = await signIn();
    const b = await signIn();
    clock.advance(7 * DAY - 1);
    await expect(refresh.execute({ refreshToken: a.refreshToken })).resolves.toBeDefined();
    clock.advance(1);
    await expect(refresh.execute({ refreshToken: b.refreshToken })).rejects.toEqual(invalid);
  });

  it('within a session’s own bounds (the console’s) refuses the family that long after sign-in and a token unrenewed that long', async () => {
    const { refresh, signIn, clock } = setup();
    const within = { sessionSeconds: 10 * 3600, idleSeconds: 1800 };
    // Renewed every 25 minutes: kept for 23 renewals (9 h 35), refused at the tenth hour, though the policy's 30 days are far.
    let token = (await signIn()).refreshToken;
    for (let renewal = 0; renewal < 23; renewal++) {
      clock.advance(25 * 60_000);
      token = (await refresh.execute({ refreshToken: token, within })).refreshToken;
    }
    clock.advance(25 * 60_000);
    await expect(refresh.execute({ refreshToken: token, within })).rejects.toEqual(invalid);
    // Out of the bounds is not a reuse: the token still exchanges without them (the session ends, the family lives).
    await expect(refresh.execute({ refreshToken: token })).resolves.toBeDefined();

    // Unrenewed for the idle bound: refused, a millisecond before it kept.
    const idle = (await signIn()).refreshToken;
    const kept = (await signIn()).refreshToken;
    clock.advance(1800_000 - 1);
    await expect(refresh.execute({ refreshToken: kept, within })).resolves.toBeDefined();
    clock.advance(1);
    await expect(refresh.execute({ refreshToken: idle, within })).rejects.toEqual(invalid);
  });

  it('revokes the whole family when a used token is presented again: the successor dies too', async () => {
    const { refresh, signIn, store } = setup();
    const first = await signIn();
    const second = await refresh.execute({ refreshToken: first.refreshToken });

    await expect(refresh.execute({ refreshToken: first.refreshToken })).rejects.toEqual(invalid);

    await expect(refresh.execute({ refreshToken: second.refreshToken })).rejects.toEqual(invalid);
    expect(store.all().every((r) => r.revokedAt !== null)).toBe(true);
  });

  it('keeps a session refreshed every 15 minutes at two rows: a used token goes once the grace and a minute have passed', async () => {
    const { refresh, signIn, clock, store } = setup();
    let token = (await signIn()).refreshToken;
    for (let renewal = 0; renewal < 96; renewal++) {
      clock.advance(15 * 60_000);
      token = (await refresh.execute({ refreshToken: token })).refreshToken;
    }
    // The token just used (kept for the grace) and its successor; 97 rows before.
    expect(store.all()).toHaveLength(2);
    await expect(refresh.execute({ refreshToken: token })).resolves.toBeDefined();
  });

  it('keeps the used tokens of quick renewals until a renewal comes past the grace and a minute, then forgets them together', async () => {
    const { refresh, signIn, clock, store } = setup();
    let token = (await signIn()).refreshToken;
    for (let renewal = 0; renewal < 3; renewal++) {
      clock.advance(1000);
      token = (await refresh.execute({ refreshToken: token })).refreshToken;
    }
    // Three used within the last minute, and the live one: none may go yet, none went.
    expect(store.all()).toHaveLength(4);
    clock.advance(61_000);
    await refresh.execute({ refreshToken: token });
    expect(store.all()).toHaveLength(2);
  });

  it('takes a used token whose row went, presented again, for a reuse: the family is revoked and the reuse audited', async () => {
    const { refresh, signIn, clock, store, secretTokens, auditTrail, ada } = setup();
    const first = await signIn();
    clock.advance(60_000);
    const second = await refresh.execute({ refreshToken: first.refreshToken });
    clock.advance(60_001);
    const third = await refresh.execute({ refreshToken: second.refreshToken });
    expect(store.all().map((r) => r.tokenHash)).not.toContain(secretTokens.hash(first.refreshToken));
    const other = await signIn();

    await expect(refresh.execute({ refreshToken: first.refreshToken })).rejects.toEqual(invalid);

    await expect(refresh.execute({ refreshToken: third.refreshToken })).rejects.toEqual(invalid);
    expect(auditTrail.entries.filter((e) => e.action === 'auth.refresh_reuse_detected')).toMatchObject([{ code: 'family_revoked', target: { id: ada.id } }]);
    await expect(refresh.execute({ refreshToken: other.refreshToken })).resolves.toBeDefined();
  });

  it('revokes nothing for a token naming a family that has ended, or that no token of ours ever had', async () => {
    const { refresh, signIn, clock, store, secretTokens, auditTrail } = setup();
    const first = await signIn();
    clock.advance(60_000);
    const second = await refresh.execute({ refreshToken: first.refreshToken });
    clock.advance(60_001);
    await refresh.execute({ refreshToken: second.refreshToken });
    expect(store.all().map((r) => r.tokenHash)).not.toContain(secretTokens.hash(first.refreshToken));
    clock.advance(30 * DAY);
    const live = await signIn();
    const madeUp = `${'0000000f00007000800000000000ffff'}${'x'.repeat(43)}`;

    for (const refreshToken of [first.refreshToken, madeUp]) await expect(refresh.execute({ refreshToken })).rejects.toEqual(invalid);

    expect(auditTrail.entries.filter((e) => e.action === 'auth.refresh_reuse_detected')).toEqual([]);
    expect(store.all().filter((r) => r.revokedAt !== null)).toEqual([]);
    await expect(refresh.execute({ refreshToken: live.refreshToken })).resolves.toBeDefined();
  });

  it('leaves other families (other devices) alone when one is revoked', async () => {
    const { refresh, signIn } = setup();
    const phone = await signIn();
    const laptop = await signIn();
    await refresh.execute({ refreshToken: phone.refreshToken });
    await expect(refresh.execute({ refreshToken: phone.refreshToken })).rejects.toEqual(invalid);

    await expect(refresh.execute({ refreshToken: laptop.refreshToken })).resolves.toBeDefined();
  });

  it('within the reuse grace refuses a used token without revoking the family; after it, revokes', async () => {
    const { refresh, signIn, clock } = setup({ ...REFRESH_POLICY, reuseGraceSeconds: 10 });
    const first = await signIn();
    const second = await refresh.execute({ refreshToken: first.refreshToken });
    clock.advance(9_999);
    await expect(refresh.execute({ refreshToken: first.refreshToken })).rejects.toEqual(invalid);
    const third = await refresh.execute({ refreshToken: second.refreshToken });

    clock.advance(10_001);
    await expect(refresh.execute({ refreshToken: first.refreshToken })).rejects.toEqual(invalid);
    await expect(refresh.execute({ refreshToken: third.refreshToken })).rejects.toEqual(invalid);
  });

  it('lets exactly one of two concurrent exchanges of one token win', async () => {
    const { refresh, signIn } = setup({ ...REFRESH_POLICY, reuseGraceSeconds: 10 });
    const first = await signIn();

    const outcomes = await Promise.allSettled([refresh.execute({ refreshToken: first.refreshToken }), refresh.execute({ refreshToken: first.refreshToken })]);

    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason)).toEqual([invalid]);
    // Within the grace the loser does not revoke: the winner's successor still works.
    await expect(refresh.execute({ refreshToken: (won[0] as PromiseFulfilledResult<{ refreshToken: string }>).value.refreshToken })).resolves.toBeDefined();
  });

  it('without a grace, the loser of a race revokes the family (RFC 9700 as written)', async () => {
    const { refresh, signIn } = setup();
    const first = await signIn();

    const outcomes = await Promise.allSettled([refresh.execute({ refreshToken: first.refreshToken }), refresh.execute({ refreshToken: first.refreshToken })]);

    const won = outcomes.filter((o) => o.status === 'fulfilled') as PromiseFulfilledResult<{ refreshToken: string }>[];
    expect(won).toHaveLength(1);
    await expect(refresh.execute({ refreshToken: won[0]!.value.refreshToken })).rejects.toEqual(invalid);
  });

  it.each([
    ['signed out (token version moved on)', (users: InMemoryUserRepository, id: string) => users.incrementTokenVersion(id)],
    ['deactivated', async (users: InMemoryUserRepository, id: string) => {
      const user = (await users.findById(id))!;
      user.deactivate({ by: 'admin', now: new Date(), newId: () => 'e' });
      await users.update(user);
    }],
  ])('refuses the tokens of a user who was %s', async (_what, change) => {
    const { refresh, signIn, users, ada } = setup();
    const first = await signIn();
    await change(users, ada.id);

    await expect(refresh.execute({ refreshToken: first.refreshToken })).rejects.toEqual(invalid);
  });

  it('refuses an unknown token with the same error', async () => {
    const { refresh } = setup();
    await expect(refresh.execute({ refreshToken: 'no-such-token' })).rejects.toEqual(invalid);
  });
});
