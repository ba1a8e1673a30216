import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import type { PublicJwk } from '../../../src/domain/service-accounts/public-jwk-set';
import type { ServiceAccountState } from '../../../src/domain/service-accounts/service-account';
import { LAST_USED_RESOLUTION_MS, ServiceAccountCredentialVerifier } from '../../../src/infrastructure/crypto/service-account-credential-verifier';
import { FixedClock } from '../../support/fakes/fixed-clock';
import { InMemoryServiceAccountRepository } from '../../support/fakes/in-memory-service-account.repository';

const hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const TOKEN_ENDPOINT = 'https://auth.example.com/oauth/token';
const ISSUER = 'https://auth.example.com';
const audience = { tokenEndpointUrl: TOKEN_ENDPOINT, issuer: ISSUER };

function keyPair(kind: 'ec' | 'rsa' | 'ed25519', kid: string): { privateKey: KeyObject; jwk: PublicJwk } {
  const pair =
    kind === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : kind === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ed25519');
  return { privateKey: pair.privateKey, jwk: { ...(pair.publicKey.export({ format: 'jwk' }) as object), kid } as PublicJwk };
}

function world() {
  const clock = new FixedClock('2026-03-01T10:00:00.000Z');
  const store = new InMemoryServiceAccountRepository();
  const ec = keyPair('ec', 'ec-1');
  const account: ServiceAccountState = {
    id: 'sa-1',
    clientId: 'client-1',
    name: 'reports',
    roleId: 'role-1',
    disabled: false,
    keys: [ec.jwk],
    secrets: [
      { id: 'secret-old', hash: hex('old-secret'), createdAt: clock.now() },
      { id: 'secret-expiring', hash: hex('expiring-secret'), createdAt: clock.now(), expiresAt: new Date(clock.now().getTime() + 60_000) },
    ],
    version: 1,
    createdAt: clock.now(),
  };
  store.save(account);
  const verifier = new ServiceAccountCredentialVerifier({ serviceAccountCredentialStore: store, clock });
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
  const assertion = (
    claims: Record<string, unknown> = {},
    options: { key?: KeyObject; kid?: string; algorithm?: 'ES256' | 'RS256' | 'EdDSA' } = {},
  ) =>
    createSigner({
      key: (options.key ?? ec.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString(),
      algorithm: options.algorithm ?? 'ES256',
      kid: options.kid ?? 'ec-1',
      clockTimestamp: clock.now().getTime(),
    })({ iss: 'client-1', sub: 'client-1', aud: TOKEN_ENDPOINT, exp: nowSeconds() + 60, jti: `jti-${Math.random()}`, ...claims });
  return { clock, store, account, verifier, assertion, ec };
}

describe('ServiceAccountCredentialVerifier: secrets', () => {
  it('accepts every stored secret of an enabled account, and records its last use', async () => {
    const w = world();
    expect(await w.verifier.authenticateWithSecret('client-1', 'old-secret')).toEqual({ id: 'sa-1', clientId: 'client-1', roleId: 'role-1', method: 'client_secret' });
    expect(await w.verifier.authenticateWithSecret('client-1', 'expiring-secret')).toMatchObject({ id: 'sa-1' });
    expect((await w.store.findById('sa-1'))!.secrets.map((s) => s.lastUsedAt)).toEqual([w.clock.now(), w.clock.now()]);
  });

  it('writes a secret\'s last use at most once a minute (LAST_USED_RESOLUTION_MS), not once per token', async () => {
    const w = world();
    const used = async () => (await w.store.findById('sa-1'))!.secrets[0]!.lastUsedAt?.toISOString();
    await w.verifier.authenticateWithSecret('client-1', 'old-secret');
    const first = await used();
    w.clock.set(new Date(w.clock.now().getTime() + LAST_USED_RESOLUTION_MS - 1));
    await w.verifier.authenticateWithSecret('client-1', 'old-secret');
    expect(await used()).toBe(first);
    w.clock.set(new Date(w.clock.now().getTime() + 1));
    await w.verifier.authenticateWithSecret('client-1', 'old-secret');
    expect(await used()).toBe(w.clock.now().toISOString());
  });

  it('refuses a wrong secret, an unknown client, an expired secret and a disabled account alike (null)', async () => {
    const w = world();
    expect(await w.verifier.authenticateWithSecret('client-1', 'wrong')).toBeNull();
    expect(await w.verifier.authenticateWithSecret('nobody', 'old-secret')).toBeNull();
    expect(await w.verifier.authenticateWithSecret('', '')).toBeNull();
    expect(await w.verifier.authenticateWithSecret('x'.repeat(500), 'old-secret')).toBeNull();
    w.clock.advance(60_000);
    expect(await w.verifier.authenticateWithSecret('client-1', 'expiring-secret')).toBeNull();
    w.store.save({ ...w.account, disabled: true });
    expect(await w.verifier.authenticateWithSecret('client-1', 'old-secret')).toBeNull();
  });

  it('compares as many hashes for an unknown client as for a wrong secret (a dummy hash stands in)', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const spy = jest.spyOn(require('node:crypto') as { timingSafeEqual: () => boolean }, 'timingSafeEqual');
    const w = world();
    await w.verifier.authenticateWithSecret('nobody', 'wrong');
    const unknown = spy.mock.calls.length;
    spy.mockClear();
    await w.verifier.authenticateWithSecret('client-1', 'wrong');
    expect(spy.mock.calls.length).toBe(unknown);
    expect(unknown).toBeGreaterThan(0);
    spy.mockRestore();
  });
});

describe('ServiceAccountCredentialVerifier: private_key_jwt (RFC 7523)', () => {
  it('accepts an assertion signed by a registered key, addressed to the token endpoint or the issuer', async () => {
    const w = world();
    expect(await w.verifier.authenticateWithAssertion(w.assertion(), audience)).toEqual({ id: 'sa-1', clientId: 'client-1', roleId: 'role-1', method: 'private_key_jwt' });
    expect(await w.verifier.authenticateWithAssertion(w.assertion({ aud: ISSUER }), audience)).toMatchObject({ id: 'sa-1' });
  });

  it.each([
    ['RS256', 'rsa'],
    ['EdDSA', 'ed25519'],
  ] as const)('verifies %s with a registered %s key', async (algorithm, kind) => {
    const w = world();
    const other = keyPair(kind, `${kind}-1`);
    w.store.save({ ...w.account, keys: [w.ec.jwk, other.jwk] });
    expect(await w.verifier.authenticateWithAssertion(w.assertion({}, { key: other.privateKey, kid: `${kind}-1`, algorithm }), audience)).toMatchObject({ id: 'sa-1' });
  });

  it('accepts a jti once: a replay is refused until the assertion has expired', async () => {
    const w = world();
    const once = w.assertion({ jti: 'fixed' });
    expect(await w.verifier.authenticateWithAssertion(once, audience)).not.toBeNull();
    expect(await w.verifier.authenticateWithAssertion(once, audience)).toBeNull();
    const [a, b] = await Promise.all([
      w.verifier.authenticateWithAssertion(w.assertion({ jti: 'raced' }), audience),
      w.verifier.authenticateWithAssertion(w.assertion({ jti: 'raced' }), audience),
    ]);
    expect([a, b].filter((r) => r !== null)).toHaveLength(1);
  });

  it('judges time by the service\'s clock at each call, not when its verifier for the key was made', async () => {
    const w = world();
    expect(await w.verifier.authenticateWithAssertion(w.assertion(), audience)).not.toBeNull(); // the key's verifier is made
    const soonExpiring = w.assertion({ exp: Math.floor(w.clock.now().getTime() / 1000) + 30 });
    const notYet = w.assertion({ nbf: Math.floor(w.clock.now().getTime() / 1000) + 20 });
    // Past its `exp` by more than the allowed skew.
    w.clock.advance(91_000);
    expect(await w.verifier.authenticateWithAssertion(soonExpiring, audience)).toBeNull();
    expect(await w.verifier.authenticateWithAssertion(notYet, audience)).not.toBeNull();
    const later = w.assertion({ nbf: Math.floor(w.clock.now().getTime() / 1000) + 61 });
    expect(await w.verifier.authenticateWithAssertion(later, audience)).toBeNull();
  });

  it('allows a client’s clock 60 s from the service’s (RFC 7523 §3), and remembers the jti as long as the assertion is taken', async () => {
    const w = world();
    const now = Math.floor(w.clock.now().getTime() / 1000);
    // A client 59 s ahead: nbf and iat are its now, exp five minutes on (as oauth4webapi and the JVM clients set them).
    const ahead = w.assertion({ jti: 'ahead', iat: now + 59, nbf: now + 59, exp: now + 59 + 300 });
    expect(await w.verifier.authenticateWithAssertion(ahead, audience)).not.toBeNull();
    // A client 59 s behind: its assertion expired a moment ago by the service's clock.
    const behind = w.assertion({ jti: 'behind', exp: now - 59 });
    expect(await w.verifier.authenticateWithAssertion(behind, audience)).not.toBeNull();
    // Beyond the skew on either side: refused.
    expect(await w.verifier.authenticateWithAssertion(w.assertion({ nbf: now + 61 }), audience)).toBeNull();
    expect(await w.verifier.authenticateWithAssertion(w.assertion({ exp: now - 61 }), audience)).toBeNull();
    expect(await w.verifier.authenticateWithAssertion(w.assertion({ exp: now + 361 }), audience)).toBeNull();
    // A replay is refused for as long as the assertion would be taken: to its exp and the skew after it.
    const replay = w.assertion({ jti: 'replayed', exp: now + 30 });
    expect(await w.verifier.authenticateWithAssertion(replay, audience)).not.toBeNull();
    w.clock.advance(89_000);
    expect(await w.verifier.authenticateWithAssertion(replay, audience)).toBeNull();
    w.clock.advance(2_000);
    expect(await w.verifier.authenticateWithAssertion(replay, audience)).toBeNull();
  });

  it('verifies with the key registered now: a key replaced under the same kid no longer signs', async () => {
    const w = world();
    expect(await w.verifier.authenticateWithAssertion(w.assertion(), audience)).not.toBeNull();
    const replacement = keyPair('ec', 'ec-1');
    w.store.save({ ...w.account, keys: [replacement.jwk] });
    expect(await w.verifier.authenticateWithAssertion(w.assertion(), audience)).toBeNull();
    expect(await w.verifier.authenticateWithAssertion(w.assertion({}, { key: replacement.privateKey }), audience)).not.toBeNull();
  });

  it('refuses every forgery and malformed assertion (null)', async () => {
    const w = world();
    const stranger = keyPair('ec', 'ec-1');
    const now = Math.floor(w.clock.now().getTime() / 1000);
    const unsigned = (header: object, payload: object) =>
      `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
    const cases: Record<string, string> = {
      'signed with another key': w.assertion({}, { key: stranger.privateKey }),
      'unknown kid': w.assertion({}, { kid: 'nope' }),
      'wrong audience': w.assertion({ aud: 'https://elsewhere.example.com' }),
      'iss differs from sub': w.assertion({ sub: 'client-2' }),
      'unknown client': w.assertion({ iss: 'client-9', sub: 'client-9' }),
      'expired beyond the skew': w.assertion({ exp: now - 61 }),
      'expires beyond 5 minutes and the skew': w.assertion({ exp: now + 361 }),
      'no jti': w.assertion({ jti: undefined }),
      'alg none': unsigned({ alg: 'none', kid: 'ec-1' }, { iss: 'client-1', sub: 'client-1', aud: TOKEN_ENDPOINT, exp: now + 60, jti: 'n' }),
      'HS256 with the public key': createSigner({ key: JSON.stringify(w.ec.jwk), algorithm: 'HS256', kid: 'ec-1' })({
        iss: 'client-1', sub: 'client-1', aud: TOKEN_ENDPOINT, exp: now + 60, jti: 'h',
      }),
      garbage: 'not.a.jwt',
      oversized: w.assertion({ pad: 'x'.repeat(9000) }),
    };
    for (const [name, assertion] of Object.entries(cases)) {
      await expect(w.verifier.authenticateWithAssertion(assertion, audience).then((r) => [name, r])).resolves.toEqual([name, null]);
    }
    w.store.save({ ...w.account, disabled: true });
    expect(await w.verifier.authenticateWithAssertion(w.assertion(), audience)).toBeNull();
  });
});
