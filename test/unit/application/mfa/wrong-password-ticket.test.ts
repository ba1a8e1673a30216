import { MfaRequiredError } from '../../../../src/application/mfa/mfa.errors';
import { InvalidMfaCodeError, InvalidMfaTokenError } from '../../../../src/domain/mfa/mfa';
import { InvalidCredentialsError } from '../../../../src/domain/users/user.errors';
import { RoleMother } from '../../../support/mothers/role.mother';
import { DEFAULT_PASSWORD, UserMother } from '../../../support/mothers/user.mother';
import { type FakeAssertion, LOCKOUT, setup } from './second-factor-rig';

const WRONG = 'not-the-password-1';

/** What a caller sees of the password step's problem, the token's value aside. */
const shape = (e: MfaRequiredError) => ({
  code: e.code,
  message: e.message,
  tokenLength: e.mfaToken.length,
  methods: e.methods,
  expiresIn: e.expiresInSeconds,
  webauthn: e.webauthnOptions && { ...e.webauthnOptions, challenge: typeof e.webauthnOptions.challenge },
});

/** The refusal a caller sees: its class and message. */
const refusalOf = (promise: Promise<unknown>) => promise.then(() => 'completed', (e: Error) => ({ type: e.constructor.name, message: e.message }));

describe('a wrong password for a user with a factor answers as the right one, with a ticket nothing completes (#24)', () => {
  it('answers the same problem (methods, token form, expiry, passkey options of the user’s credentials) after the same store work', async () => {
    const rig = setup();
    await rig.enroll();
    await rig.recoveryCodes('aaaaaaaaaa', 'bbbbbbbbbb');
    await rig.addPasskey('cred-1');
    await rig.addPasskey('cred-2');
    rig.storeCalls.length = 0;
    const right = await rig.challenged();
    const rightCalls = rig.storeCalls.splice(0);
    const wrong = await rig.challenged(WRONG);
    const wrongCalls = rig.storeCalls.splice(0);

    expect(shape(wrong)).toEqual(shape(right));
    expect(wrong.methods).toEqual(['totp', 'webauthn', 'recovery_code']);
    expect(wrong.webauthnOptions).toMatchObject({ allowCredentials: [{ id: 'cred-1' }, { id: 'cred-2' }] });
    expect(wrong.mfaToken).not.toBe(right.mfaToken);
    expect(wrongCalls).toEqual(rightCalls);
    // Nothing is stored for the ticket: it is sealed, the password's outcome inside, for this service alone to read.
    expect(rightCalls).toEqual(['secondStepOf', 'addWebAuthnChallenge']);
    // The clock stood still between the two: the later ticket is a microsecond later.
    const issued = rig.clock.now().getTime() * 1000;
    expect(rig.signInTickets.open(right.mfaToken)).toEqual({ userId: rig.ada.id, accountKey: 'ada', issuedAtMicros: issued, passwordMatched: true, tokenVersion: rig.ada.tokenVersion });
    expect(rig.signInTickets.open(wrong.mfaToken)).toEqual({ userId: rig.ada.id, accountKey: 'ada', issuedAtMicros: issued + 1, passwordMatched: false, tokenVersion: rig.ada.tokenVersion });
  });

  it('audits the wrong password as before (no mfa_required entry) and counts it toward the lockout', async () => {
    const rig = setup();
    await rig.enroll();
    // Threshold 4: four wrong passwords, each answered as the right one would be; the fourth locks.
    for (let i = 0; i < 4; i++) await rig.challenged(WRONG);
    const entries = rig.auditTrail.entries.map((e) => `${e.action} ${e.outcome} ${e.code}`);
    expect(entries).toEqual([...Array(4).fill('auth.signin_failed failure wrong_password'), 'auth.locked_out success threshold_reached']);
    // Locked: a wrong password's answer, even for the right password (a ticket that never completes).
    const whileLocked = await rig.ticket(DEFAULT_PASSWORD);
    expect(rig.signInTickets.open(whileLocked)).toMatchObject({ passwordMatched: false });
    expect(rig.auditTrail.entries.at(-1)).toMatchObject({ action: 'auth.signin_failed', code: 'locked' });
  });

  it('locks at the attempt that spends the allowance, right password or wrong, for the same wait', async () => {
    const outcomes: string[][] = [];
    for (const last of [DEFAULT_PASSWORD, WRONG]) {
      const rig = setup();
      await rig.enroll();
      for (let i = 0; i < 3; i++) await rig.challenged(WRONG);
      await rig.challenged(last);
      const seen: string[] = [];
      // The right password: its ticket tells whether the password step confirmed it (not while locked).
      const attempt = async () => seen.push(rig.signInTickets.open(await rig.ticket(DEFAULT_PASSWORD))?.passwordMatched ? 'confirmed' : 'as a wrong password');
      await attempt();
      rig.clock.advance(59_000);
      await attempt();
      rig.clock.advance(2_000);
      await attempt();
      outcomes.push(seen);
      expect(rig.auditTrail.entries.filter((e) => e.action === 'auth.locked_out')).toHaveLength(1);
    }
    // Locked for the 60-second wait from the fourth attempt either way, then answered as before.
    expect(outcomes).toEqual([
      ['as a wrong password', 'as a wrong password', 'confirmed'],
      ['as a wrong password', 'as a wrong password', 'confirmed'],
    ]);
  });

  it('refuses a current TOTP code on it as a wrong code, after the same work, and leaves the code unused', async () => {
    const rig = setup([], { ...LOCKOUT, threshold: 10 });
    await rig.enroll();
    const real = await rig.ticket();
    const decoy = await rig.ticket(WRONG);
    rig.storeCalls.length = 0;
    const wrongCode = await refusalOf(rig.complete.execute({ mfaToken: real, code: rig.code(-5) }));
    const wrongCodeCalls = rig.storeCalls.splice(0);
    const rightCodeOnDecoy = await refusalOf(rig.complete.execute({ mfaToken: decoy, code: rig.code(0) }));
    expect(rig.storeCalls).toEqual(wrongCodeCalls);
    expect(rightCodeOnDecoy).toEqual(wrongCode);
    expect(rightCodeOnDecoy).toMatchObject({ type: InvalidMfaCodeError.name });
    expect(rig.auditTrail.entries.at(-1)).toMatchObject({ action: 'auth.mfa_failed', outcome: 'failure', code: 'wrong_password' });
    // The code's step was not used up: the same code completes the right password's ticket.
    await expect(rig.complete.execute({ mfaToken: real, code: rig.code(0) })).resolves.toMatchObject({ username: 'ada' });
    expect(rig.tokens.issued).toHaveLength(1);
  });

  it('refuses a right recovery code on it, leaving the code unused', async () => {
    const rig = setup();
    await rig.enroll();
    await rig.recoveryCodes('aaaaaaaaaa', 'bbbbbbbbbb');
    const decoy = await rig.ticket(WRONG);
    await expect(rig.complete.execute({ mfaToken: decoy, recoveryCode: 'aaaaa-aaaaa' })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    await expect(rig.complete.execute({ mfaToken: await rig.ticket(), recoveryCode: 'aaaaa-aaaaa' })).resolves.toMatchObject({ recoveryCodesRemaining: 1 });
  });

  it('hands new passkey options for it and refuses a valid assertion, the passkey’s counter and last use untouched', async () => {
    const rig = setup();
    await rig.addPasskey('cred-1');
    const decoy = await rig.challenged(WRONG);
    const fresh = await rig.options.execute({ mfaToken: decoy.mfaToken });
    expect(fresh).toMatchObject({ allowCredentials: [{ id: 'cred-1' }] });
    const assertion: FakeAssertion = { id: 'cred-1', challenge: String(fresh.challenge), valid: true, counter: 7 };
    await expect(rig.complete.execute({ mfaToken: decoy.mfaToken, webauthn: assertion })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    expect(await rig.mfaStore.passkeysOf(rig.ada.id)).toMatchObject([{ counter: 0, lastUsedAt: null }]);
    // The same authenticator completes the right password's ticket.
    const real = await rig.challenged();
    const answer: FakeAssertion = { id: 'cred-1', challenge: String(real.webauthnOptions?.challenge), valid: true, counter: 8 };
    await expect(rig.complete.execute({ mfaToken: real.mfaToken, webauthn: answer })).resolves.toMatchObject({ username: 'ada' });
  });

  it('counts every refusal on it toward the lockout, as wrong codes do, and expires as a real ticket does', async () => {
    const rig = setup();
    await rig.enroll();
    // Threshold 4: wrong password (1), right code on its ticket (2), wrong password (3), right code (4): locked.
    await expect(rig.complete.execute({ mfaToken: await rig.ticket(WRONG), code: rig.code(0) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    const second = await rig.ticket(WRONG);
    await expect(rig.complete.execute({ mfaToken: second, code: rig.code(0) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    expect(rig.signInTickets.open(await rig.ticket(DEFAULT_PASSWORD))).toMatchObject({ passwordMatched: false });
    expect(rig.auditTrail.entries.map((e) => e.action)).toContain('auth.locked_out');

    const later = setup();
    await later.enroll();
    const decoy = await later.ticket(WRONG);
    later.clock.advance(301_000);
    await expect(later.complete.execute({ mfaToken: decoy, code: later.code(0) })).rejects.toBeInstanceOf(InvalidMfaTokenError);
  });

  it('keeps the seed’s answer for a user without a factor, an unknown and a deactivated user without one, after the same store reads', async () => {
    const rig = setup();
    const calls: string[][] = [];
    const refused = async (username: string, password: string) => {
      rig.storeCalls.length = 0;
      await expect(rig.signIn.execute({ username, password })).rejects.toBeInstanceOf(InvalidCredentialsError);
      calls.push(rig.storeCalls.splice(0));
    };
    await refused('ada', WRONG);
    await refused('nobody', WRONG);
    rig.users.seed(UserMother.deactivated({ username: 'gone', role: RoleMother.member() }));
    await refused('gone', DEFAULT_PASSWORD);
    expect(new Set(calls.map((c) => c.join()))).toEqual(new Set(['secondStepOf']));
  });

  it('answers a deactivated or locked user with a factor as a wrong password, right password or not: a ticket nothing completes, after the same store reads', async () => {
    const rig = setup();
    await rig.enroll();
    rig.storeCalls.length = 0;
    await rig.challenged(WRONG);
    const wrongPasswordCalls = rig.storeCalls.splice(0);
    /** The answer to `password`: a ticket as a wrong password's, after a wrong password's store reads (and a passkey's challenge, for a user with one). */
    const asWrongPassword = async (username: string, password: string, calls = wrongPasswordCalls): Promise<string> => {
      rig.storeCalls.length = 0;
      const answer = await rig.signIn.execute({ username, password }).then(() => null, (e: unknown) => e);
      expect(answer).toBeInstanceOf(MfaRequiredError);
      expect(rig.storeCalls.splice(0)).toEqual(calls);
      const token = (answer as MfaRequiredError).mfaToken;
      expect(rig.signInTickets.open(token)).toMatchObject({ passwordMatched: false });
      return token;
    };
    const gone = UserMother.deactivated({ username: 'gone-with-app', role: RoleMother.member() });
    rig.users.seed(gone);
    await rig.mfaStore.addPasskey({ id: 'pk-x', userId: gone.id, name: 'Key', credentialId: 'cred-x', publicKey: 'pk', counter: 0, transports: [], createdAt: rig.clock.now(), lastUsedAt: null });
    const goneTicket = await asWrongPassword('gone-with-app', DEFAULT_PASSWORD, [...wrongPasswordCalls, 'addWebAuthnChallenge']);
    await asWrongPassword('gone-with-app', WRONG, [...wrongPasswordCalls, 'addWebAuthnChallenge']);
    // Its second step is refused as a wrong password's ticket is: the code, not the ticket.
    const options = await rig.options.execute({ mfaToken: goneTicket });
    const assertion: FakeAssertion = { id: 'cred-x', challenge: String(options.challenge), valid: true, counter: 1 };
    await expect(rig.complete.execute({ mfaToken: goneTicket, webauthn: assertion })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    // With the first wrong password above, four: locked.
    for (let i = 0; i < 3; i++) await rig.challenged(WRONG);
    const lockedTicket = await asWrongPassword('ada', DEFAULT_PASSWORD);
    await asWrongPassword('ada', WRONG);
    await expect(rig.complete.execute({ mfaToken: lockedTicket, code: rig.code(0) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    expect(rig.tokens.issued).toHaveLength(0);
  });
});
