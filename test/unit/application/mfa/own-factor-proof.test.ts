import { AuditActions } from '../../../../src/domain/audit/audit-entry';
import { InvalidMfaCodeError } from '../../../../src/domain/mfa/mfa';
import { LOCKOUT, setup } from './second-factor-rig';

/** A proof of the owner (the password, or a current code) checked as a sign-in checks it (#24, ASVS V7.5.1). */
describe('a factor proof', () => {
  it('does the same reads for a code whether the account is locked or not, and uses nothing up while locked', async () => {
    const { ownFactorProof, enroll, ada, code, storeCalls, memory } = setup();
    await enroll();
    const prove = (c: string) => ownFactorProof.check(ada, { code: c }, AuditActions.mfaRecoveryCodesRegenerated);

    storeCalls.length = 0;
    await expect(prove('000000')).rejects.toBeInstanceOf(InvalidMfaCodeError);
    const wrongWhileOpen = [...storeCalls];
    for (let i = 1; i < LOCKOUT.threshold; i++) await expect(prove('000000')).rejects.toBeInstanceOf(InvalidMfaCodeError);

    // Locked now: a right code is refused as a wrong one, after the same reads, and its step stays unused.
    storeCalls.length = 0;
    await expect(prove(code())).rejects.toBeInstanceOf(InvalidMfaCodeError);
    expect(storeCalls).toEqual(wrongWhileOpen);
    expect((await memory.factorsOf(ada.id))[0]!.lastUsedStep).toBeNull();
  });

  it('uses a right code up while the account is open: the same code proves nothing a second time', async () => {
    const { ownFactorProof, enroll, ada, code } = setup();
    await enroll();
    const prove = (c: string) => ownFactorProof.check(ada, { code: c }, AuditActions.mfaRecoveryCodesRegenerated);
    const current = code();
    await expect(prove(current)).resolves.toBeUndefined();
    await expect(prove(current)).rejects.toBeInstanceOf(InvalidMfaCodeError);
  });

  it('takes a code as the apps show it, three digits, a space and three; no other spacing', async () => {
    const { ownFactorProof, enroll, ada, code } = setup();
    await enroll();
    const prove = (c: string) => ownFactorProof.check(ada, { code: c }, AuditActions.mfaRecoveryCodesRegenerated);
    const current = code();
    await expect(prove(`${current.slice(0, 2)} ${current.slice(2)}`)).rejects.toBeInstanceOf(InvalidMfaCodeError);
    await expect(prove(` ${current}`)).rejects.toBeInstanceOf(InvalidMfaCodeError);
    await expect(prove(`${current.slice(0, 3)} ${current.slice(3)}`)).resolves.toBeUndefined();
  });
});
