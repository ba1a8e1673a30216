import { type SingleUseToken, singleUseTokenStatus } from '../../../src/domain/shared/single-use-token';

const createdAt = new Date('2026-01-24T12:00:00.000Z');
const expiresAt = new Date('2026-01-31T12:00:00.000Z');
const invitation: SingleUseToken = { userId: 'user-1', tokenHash: 'a'.repeat(64), createdAt, expiresAt };
const at = (ms: number) => new Date(expiresAt.getTime() + ms);

describe('singleUseTokenStatus', () => {
  it('is valid from its creation up to the last millisecond before it expires', () => {
    expect(singleUseTokenStatus(invitation, createdAt)).toBe('valid');
    expect(singleUseTokenStatus(invitation, at(-1))).toBe('valid');
  });

  it('is expired at the very instant of expiry, and after', () => {
    expect(singleUseTokenStatus(invitation, at(0))).toBe('expired');
    expect(singleUseTokenStatus(invitation, at(1))).toBe('expired');
    expect(singleUseTokenStatus(invitation, at(365 * 86_400_000))).toBe('expired');
  });

  it('is used once used, whether or not it has expired since', () => {
    const used: SingleUseToken = { ...invitation, usedAt: new Date('2026-01-25T08:00:00.000Z') };

    expect(singleUseTokenStatus(used, at(-1))).toBe('used');
    expect(singleUseTokenStatus(used, at(0))).toBe('used');
    expect(singleUseTokenStatus(used, at(86_400_000))).toBe('used');
  });

  it('compares instants, not the Date objects', () => {
    expect(singleUseTokenStatus(invitation, new Date(expiresAt.toISOString()))).toBe('expired');
  });
});
