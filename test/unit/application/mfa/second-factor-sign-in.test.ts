import { InvalidMfaCodeError, InvalidMfaTokenError } from '../../../../src/domain/mfa/mfa';
import { DEFAULT_PASSWORD } from '../../../support/mothers/user.mother';
import { setup } from './second-factor-rig';

describe('signing in with a second factor (#24)', () => {
  it('a user without a factor gets its session from the password alone', async () => {
    const { signIn, tokens } = setup();
    await expect(signIn.execute({ username: 'ada', password: DEFAULT_PASSWORD })).resolves.toMatchObject({ username: 'ada' });
    expect(tokens.issued).toHaveLength(1);
  });

  it('with a factor: the password answers a ticket and no token; the ticket and a current code answer the session', async () => {
    const { complete, tokens, enroll, ticket, code } = setup();
    await enroll();
    const mfaToken = await ticket();
    expect(tokens.issued).toHaveLength(0);
    await expect(complete.execute({ mfaToken, code: code(1) })).resolves.toMatchObject({ username: 'ada', accessToken: tokens.issued[0]?.token ?? expect.any(String) });
    expect(tokens.issued).toHaveLength(1);
  });

  it('refuses a code of a step already used, and a code two steps away', async () => {
    const { complete, enroll, ticket, code } = setup();
    await enroll();
    await complete.execute({ mfaToken: await ticket(), code: code(0) });
    // One ticket, three wrong codes: it stays usable until it succeeds (the lockout bounds the guesses).
    const mfaToken = await ticket();
    await expect(complete.execute({ mfaToken, code: code(0) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    await expect(complete.execute({ mfaToken, code: code(-1) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    await expect(complete.execute({ mfaToken, code: code(2) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
  });

  it('uses a ticket up when it completes: refused after, as is any ticket handed out before it; a later one works', async () => {
    const { complete, enroll, ticket, code, clock, recoveryCodes, tokens } = setup();
    await enroll();
    const earlier = await ticket();
    const used = await ticket();
    await expect(complete.execute({ mfaToken: used, code: code(0) })).resolves.toMatchObject({ username: 'ada' });
    clock.advance(30_000);
    await expect(complete.execute({ mfaToken: used, code: code(0) })).rejects.toBeInstanceOf(InvalidMfaTokenError);
    await expect(complete.execute({ mfaToken: earlier, code: code(0) })).rejects.toBeInstanceOf(InvalidMfaTokenError);
    const later = await ticket();
    await recoveryCodes('aaaaaaaaaa', 'bbbbbbbbbb');
    await expect(complete.execute({ mfaToken: later, recoveryCode: 'aaaaaaaaaa' })).resolves.toMatchObject({ username: 'ada', recoveryCodesRemaining: 1 });
    await expect(complete.execute({ mfaToken: later, recoveryCode: 'bbbbbbbbbb' })).rejects.toBeInstanceOf(InvalidMfaTokenError);
    expect(tokens.issued).toHaveLength(2);
  });

  it('completes one ticket once when two right codes race on it', async () => {
    const { complete, enroll, ticket, code, tokens } = setup();
    await enroll();
    const mfaToken = await ticket();
    const outcomes = await Promise.allSettled([complete.execute({ mfaToken, code: code(0) }), complete.execute({ mfaToken, code: code(1) })]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: expect.any(InvalidMfaCodeError) });
    expect(tokens.issued).toHaveLength(1);
  });

  it('two recovery codes racing on one ticket: one completes, and the refused one’s code stays unused', async () => {
    const { complete, enroll, ticket, recoveryCodes, mfaStore, ada, tokens } = setup();
    await enroll();
    await recoveryCodes('aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc');
    const mfaToken = await ticket();
    const outcomes = await Promise.allSettled([complete.execute({ mfaToken, recoveryCode: 'aaaaaaaaaa' }), complete.execute({ mfaToken, recoveryCode: 'bbbbbbbbbb' })]);
    const won = outcomes.findIndex((o) => o.status === 'fulfilled');
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes[1 - won]).toMatchObject({ reason: expect.any(InvalidMfaTokenError) });
    expect(tokens.issued).toHaveLength(1);
    expect(await mfaStore.remainingRecoveryCodes(ada.id)).toBe(2);
    const refusedCode = ['aaaaaaaaaa', 'bbbbbbbbbb'][1 - won]!;
    await expect(complete.execute({ mfaToken: await ticket(), recoveryCode: refusedCode })).resolves.toMatchObject({ recoveryCodesRemaining: 1 });
  });

  it('takes a recovery code in any spelling under its set’s salt, and a code stored before salts (a plain SHA-256) as well', async () => {
    const { complete, enroll, ticket, recoveryCodes, unsaltedRecoveryCodes, mfaStore, ada } = setup();
    await enroll();
    await recoveryCodes('aaaaaaaaaa', 'bbbbbbbbbb');
    expect(await mfaStore.recoveryCodeSalt(ada.id)).toMatch(/^[0-9a-f]{32}$/);
    await expect(complete.execute({ mfaToken: await ticket(), recoveryCode: 'AAAAA-AAAAA' })).resolves.toMatchObject({ recoveryCodesRemaining: 1 });
    await unsaltedRecoveryCodes('cccccccccc', 'dddddddddd');
    expect(await mfaStore.recoveryCodeSalt(ada.id)).toBeNull();
    await expect(complete.execute({ mfaToken: await ticket(), recoveryCode: 'ccccc-ccccc' })).resolves.toMatchObject({ recoveryCodesRemaining: 1 });
  });

  it('counts password steps and wrong codes together toward the lockout; a right password does not reset it', async () => {
    const { complete, enroll, ticket, code, signInTickets } = setup();
    await enroll();
    // Threshold 4: password (1), wrong code (2), password (3), wrong code (4): locked.
    await expect(complete.execute({ mfaToken: await ticket(), code: code(-5) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    const second = await ticket();
    await expect(complete.execute({ mfaToken: second, code: code(-5) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    // Locked: the right password answers as a wrong one does, with a ticket that never completes.
    const whileLocked = await ticket();
    expect(signInTickets.open(whileLocked)).toMatchObject({ passwordMatched: false });
    await expect(complete.execute({ mfaToken: whileLocked, code: code(0) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    // Even the right code on a live ticket is refused while locked.
    await expect(complete.execute({ mfaToken: second, code: code(0) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
  });

  it('MFA_REQUIRED_PERMISSIONS: a role holding one, without a factor, gets an enrollment-only token; a role without one a whole token', async () => {
    const { signIn, tokens } = setup(['users:delete']);
    await signIn.execute({ username: 'ada', password: DEFAULT_PASSWORD });
    expect(tokens.issued[0].enrollmentOnly).toBe(true);
    const { signIn: other, tokens: otherTokens } = setup(['no:such']);
    await other.execute({ username: 'ada', password: DEFAULT_PASSWORD });
    expect(otherTokens.issued[0].enrollmentOnly).toBeUndefined();
  });
});
