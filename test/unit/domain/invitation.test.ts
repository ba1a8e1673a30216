import { type Invitation, invitationStatus } from '../../../src/domain/invitations/invitation';

const createdAt = new Date('2026-01-24T12:00:00.000Z');
const expiresAt = new Date('2026-01-31T12:00:00.000Z');
const invitation: Invitation = { userId: 'user-1', tokenHash: 'a'.repeat(64), createdAt, expiresAt };
const at = (ms: number) => new Date(expiresAt.getTime() + ms);

describe('invitationStatus', () => {
  it('is valid from its creation up to the last millisecond before it expires', () => {
    expect(invitationStatus(invitation, createdAt)).toBe('valid');
    expect(invitationStatus(invitation, at(-1))).toBe('valid');
  });

  it('is expired at the very instant of expiry, and after', () => {
    expect(invitationStatus(invitation, at(0))).toBe('expired');
    expect(invitationStatus(invitation, at(1))).toBe('expired');
    expect(invitationStatus(invitation, at(365 * 86_400_000))).toBe('expired');
  });

  it('is used once used, whether or not it has expired since', () => {
    const used: Invitation = { ...invitation, usedAt: new Date('2026-01-25T08:00:00.000Z') };

    expect(invitationStatus(used, at(-1))).toBe('used');
    expect(invitationStatus(used, at(0))).toBe('used');
    expect(invitationStatus(used, at(86_400_000))).toBe('used');
  });

  it('compares instants, not the Date objects', () => {
    expect(invitationStatus(invitation, new Date(expiresAt.toISOString()))).toBe('expired');
  });
});
