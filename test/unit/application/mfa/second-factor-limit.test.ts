import { InvalidMfaCodeError } from '../../../../src/domain/mfa/mfa';
import { LOCKOUT, setup } from './second-factor-rig';

const WRONG = 'not-the-password-1';

/** The refusal a caller sees: its class and message. */
const refusalOf = (promise: Promise<unknown>) => promise.then(() => 'completed', (e: Error) => ({ type: e.constructor.name, message: e.message }));

/**
 * A lock's wait ends and gives its allowance back, so someone with the password could guess codes for ever (30 every
 * 15 minutes by default). Codes refused on a right password's tickets are counted apart, and at the limit the second
 * step refuses every code until the account succeeds again: a password reset (#24, review of 2026-12-06).
 */
describe('the second step closes after MFA_MAX_FAILURES refused codes of a right password (#24)', () => {
  const LIMIT = { ...LOCKOUT, threshold: 4, secondFactorFailureLimit: 6 };

  /** One wrong code on a new ticket of `password`; the lock's wait passed after each, so the limit, not the lock, decides. */
  const guess = async (rig: ReturnType<typeof setup>, password?: string) => {
    const mfaToken = await rig.ticket(password);
    await expect(rig.complete.execute({ mfaToken, code: rig.code(-7) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    rig.clock.advance(LIMIT.maxWaitSeconds * 1000 + 1000);
  };

  it('refuses the right code once the limit is reached, locks and waits notwithstanding, as a wrong code is refused', async () => {
    const rig = setup([], LIMIT);
    await rig.enroll();
    for (let i = 0; i < LIMIT.secondFactorFailureLimit; i++) await guess(rig);
    const wrong = await refusalOf(rig.complete.execute({ mfaToken: await rig.ticket(), code: rig.code(-7) }));
    rig.clock.advance(LIMIT.maxWaitSeconds * 1000 + 1000);

    const right = await refusalOf(rig.complete.execute({ mfaToken: await rig.ticket(), code: rig.code(0) }));

    expect(right).toEqual(wrong);
    expect(right).toMatchObject({ type: InvalidMfaCodeError.name, message: expect.stringContaining('until the password is reset') });
    expect(rig.auditTrail.entries.filter((e) => e.action === 'auth.mfa_failed').at(-1)).toMatchObject({ outcome: 'failure', code: 'second_factor_closed' });
    // Nor does a recovery code pass, and it is not used up.
    await rig.recoveryCodes('aaaaaaaaaa');
    await expect(rig.complete.execute({ mfaToken: await rig.ticket(), recoveryCode: 'aaaaaaaaaa' })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    expect(await rig.mfaStore.remainingRecoveryCodes(rig.ada.id)).toBe(1);
  });

  it('opens again when the account succeeds (a password reset clears the counters), and a success before the limit starts the count over', async () => {
    const rig = setup([], LIMIT);
    await rig.enroll();
    for (let i = 0; i < LIMIT.secondFactorFailureLimit - 1; i++) await guess(rig);
    // One short of the limit: the right code still signs in, and the count starts over.
    await expect(rig.complete.execute({ mfaToken: await rig.ticket(), code: rig.code(0) })).resolves.toMatchObject({ accessToken: expect.any(String) });
    rig.clock.advance(30_000);
    for (let i = 0; i < LIMIT.secondFactorFailureLimit - 1; i++) await guess(rig);
    await expect(rig.complete.execute({ mfaToken: await rig.ticket(), code: rig.code(0) })).resolves.toMatchObject({ accessToken: expect.any(String) });

    rig.clock.advance(30_000);
    for (let i = 0; i < LIMIT.secondFactorFailureLimit; i++) await guess(rig);
    await expect(rig.complete.execute({ mfaToken: await rig.ticket(), code: rig.code(0) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    rig.clock.advance(30_000);
    // What a confirmed password reset does (ConfirmPasswordResetUseCase): the account's counters start over.
    await rig.loginAttempts.succeeded('ada');
    await expect(rig.complete.execute({ mfaToken: await rig.ticket(), code: rig.code(0) })).resolves.toMatchObject({ accessToken: expect.any(String) });
  });

  it('counts no code given on a wrong password’s ticket: someone without the password cannot close the owner’s second step', async () => {
    const rig = setup([], LIMIT);
    await rig.enroll();
    for (let i = 0; i < LIMIT.secondFactorFailureLimit * 2; i++) await guess(rig, WRONG);
    expect(rig.loginAttempts.factorFailures('ada')).toBe(0);
    await expect(rig.complete.execute({ mfaToken: await rig.ticket(), code: rig.code(0) })).resolves.toMatchObject({ accessToken: expect.any(String) });
  });
});
