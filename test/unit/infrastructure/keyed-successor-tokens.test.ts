import { randomBytes } from 'node:crypto';
import { KeyedSuccessorTokens } from '../../../src/infrastructure/crypto/keyed-successor-tokens';

describe('KeyedSuccessorTokens', () => {
  it('derives one 256-bit base64url successor per presented token and key: the same on every call and replica, another for another token or key', () => {
    const key = randomBytes(32);
    const here = new KeyedSuccessorTokens(key);
    const replica = new KeyedSuccessorTokens(Buffer.from(key));
    const token = randomBytes(32).toString('base64url');
    const successor = here.successorOf(token);
    expect(successor).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(replica.successorOf(token)).toBe(successor);
    expect(here.successorOf(`${token}x`)).not.toBe(successor);
    expect(new KeyedSuccessorTokens(randomBytes(32)).successorOf(token)).not.toBe(successor);
    expect(successor).not.toContain(token.slice(0, 8));
  });
});
