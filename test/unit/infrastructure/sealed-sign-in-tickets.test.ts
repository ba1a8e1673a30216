import { createCipheriv, createSecretKey, hkdfSync } from 'node:crypto';
import { AesGcmSecretCipher } from '../../../src/infrastructure/crypto/aes-gcm-secret-cipher';
import { SealedSignInTickets } from '../../../src/infrastructure/crypto/sealed-sign-in-tickets';

const KEY = Buffer.alloc(32, 7);
const claims = { userId: '0190a5b2-0000-7000-8000-000000000001', accountKey: 'ada.lovelace', issuedAtMicros: 1_767_225_600_123_456, passwordMatched: true, tokenVersion: 3 };

describe('SealedSignInTickets (#24): the second step’s ticket, sealed instead of stored', () => {
  const tickets = new SealedSignInTickets(KEY);

  it('opens what it issued, each ticket different, none readable by its holder', () => {
    const a = tickets.issue(claims);
    const b = tickets.issue(claims);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^t1\.[A-Za-z0-9_-]+$/);
    expect(tickets.open(a)).toEqual(claims);
    expect(tickets.open(b)).toEqual(claims);
    const body = Buffer.from(a.slice(3), 'base64url').toString('latin1');
    for (const clear of [claims.userId, claims.accountKey, String(claims.issuedAtMicros)]) expect(body).not.toContain(clear);
  });

  it('gives a wrong password’s ticket the same form and length as the right one’s', () => {
    const wrong = tickets.issue({ ...claims, passwordMatched: false });
    const right = tickets.issue(claims);
    expect(wrong.length).toBe(right.length);
    expect(tickets.open(wrong)).toEqual({ ...claims, passwordMatched: false });
  });

  it('opens nothing changed, cut, of another key or of another form', () => {
    const token = tickets.issue(claims);
    const at = (i: number) => `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`;
    // A character of the nonce, of the ciphertext and of the tag.
    for (const i of [5, 30, token.length - 5]) expect(tickets.open(at(i))).toBeNull();
    expect(tickets.open(token.slice(0, -4))).toBeNull();
    expect(tickets.open(new SealedSignInTickets(Buffer.alloc(32, 8)).issue(claims))).toBeNull();
    // The factors' secrets are sealed with the same configured key, but not with the tickets' derived one.
    expect(tickets.open(`t1.${new AesGcmSecretCipher(KEY).seal(JSON.stringify({ u: claims.userId, k: 'ada', t: 1, m: 1 })).split('.').slice(1).join('')}`)).toBeNull();
    // A ticket of the form before the token version was sealed in: not one to honour.
    const older = (payload: unknown) => {
      const cipher = createCipheriv('aes-256-gcm', createSecretKey(Buffer.from(hkdfSync('sha256', KEY, Buffer.alloc(0), 'access-control sign-in ticket v1', 32))), Buffer.alloc(12, 1));
      cipher.setAAD(Buffer.from('t1'));
      const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
      return `t1.${Buffer.concat([Buffer.alloc(12, 1), body, cipher.getAuthTag()]).toString('base64url')}`;
    };
    const fields = { u: claims.userId, k: claims.accountKey, t: claims.issuedAtMicros, m: 1 };
    expect(tickets.open(older({ ...fields, v: 3 }))).toEqual(claims);
    for (const v of [undefined, -1, 1.5, '3']) expect(tickets.open(older({ ...fields, v }))).toBeNull();
    for (const junk of ['', 't1.', 't2.' + token.slice(3), 'x'.repeat(43), `t1.${'A'.repeat(2000)}`]) expect(tickets.open(junk)).toBeNull();
    expect(tickets.open(undefined as unknown as string)).toBeNull();
  });
});
