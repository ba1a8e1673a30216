import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { JwtAccessTokenVerifier } from '../../../src/infrastructure/crypto/jwt-access-token-verifier';
import { signingKeyFromPem, verificationKeysFor } from '../../../src/infrastructure/crypto/signing-keys';
import { b64url, signJwt, unsigned } from '../../support/tokens';

const pem = (key: KeyObject) => key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString();
const pairOf = (pair: { privateKey: KeyObject; publicKey: KeyObject }) => signingKeyFromPem(pem(pair.privateKey), pem(pair.publicKey));

describe('JwtAccessTokenVerifier (introspection and revocation read tokens as the bearer authentication does)', () => {
  const current = pairOf(generateKeyPairSync('ec', { namedCurve: 'P-256' }));
  const retired = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const retiredKey = pairOf(retired);
  const verifier = new JwtAccessTokenVerifier(verificationKeysFor(current, [{ variable: 'JWT_PREVIOUS_PUBLIC_KEYS', pems: [pem(retired.publicKey)] }]), { issuer: 'https://id.example.com', audience: 'access-control' });
  const now = Math.floor(Date.now() / 1000);
  const user = { iss: 'https://id.example.com', aud: 'access-control', sub: 'user-1', iat: now, exp: now + 600, jti: 'j', ver: 3 };
  const sign = (payload: Record<string, unknown>, key = current, header: Record<string, unknown> = {}) => signJwt(key.privateKeyPem, payload, { kid: key.kid, ...header });

  it('reads a user’s token, by the current key or a retired one', async () => {
    const expected = { kind: 'user', subject: 'user-1', tokenVersion: 3, issuer: user.iss, audience: user.aud, issuedAt: now, expiresAt: now + 600 };
    await expect(verifier.verify(sign(user))).resolves.toEqual(expected);
    await expect(verifier.verify(sign(user, retiredKey))).resolves.toEqual(expected);
  });

  it('reads a service’s token: its client id and scope, no version', async () => {
    const { ver: _ver, ...service } = user;
    await expect(verifier.verify(sign({ ...service, client_id: 'client-1', scope: 'users:read roles:read' }))).resolves.toMatchObject({
      kind: 'service',
      clientId: 'client-1',
      scope: ['users:read', 'roles:read'],
    });
    await expect(verifier.verify(sign({ ...service, client_id: 'client-1', scope: '' }))).resolves.toMatchObject({ kind: 'service', scope: [] });
  });

  it.each([
    ['expired', () => sign({ ...user, iat: now - 700, exp: now - 100 })],
    ['another issuer', () => sign({ ...user, iss: 'https://evil.example.com' })],
    ['another audience', () => sign({ ...user, aud: 'another' })],
    ['no version', () => sign({ ...user, ver: undefined })],
    ['a negative version', () => sign({ ...user, ver: -1 })],
    ['both kinds', () => sign({ ...user, client_id: 'client-1', scope: '' })],
    ['a scope without a client', () => sign({ ...user, scope: 'users:read' })],
    ['a service without a scope', () => sign({ ...user, ver: undefined, client_id: 'client-1' })],
    ['a scope with double spaces', () => sign({ ...user, ver: undefined, client_id: 'client-1', scope: 'a  b' })],
    ['no subject', () => sign({ ...user, sub: '' })],
    ['a foreign key under our kid', () => signJwt(pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey), user, { kid: current.kid })],
    ['an unknown kid', () => sign(user, current, { kid: 'nobody' })],
    ['a key named by the token itself', () => sign(user, current, { jku: 'https://evil.example.com/jwks' })],
    ['the retired RSA key under the current kid', () => signJwt(retiredKey.privateKeyPem, user, { kid: current.kid })],
    ['alg none', () => unsigned(user)],
    ['a tampered payload', () => {
      const [h, , s] = sign(user).split('.');
      return `${h}.${b64url({ ...user, sub: 'admin' })}.${s}`;
    }],
    ['not a JWT', () => 'x'.repeat(43)],
    ['a header that is not JSON', () => `${b64url('nope')}.${b64url(user)}.x`],
  ])('answers null to %s', async (_what, token) => {
    await expect(verifier.verify(token())).resolves.toBeNull();
  });

  describe('with RESOURCE_SERVERS (RFC 8707): a service’s token for one of them, which its resource server asks about', () => {
    const ORDERS = 'https://orders.example.com';
    const withResources = new JwtAccessTokenVerifier(verificationKeysFor(current, []), { issuer: user.iss, audience: 'access-control', resources: [ORDERS] });
    const { ver: _ver, ...service } = user;

    it('reads a service’s token for a listed resource server, and says whose it is', async () => {
      await expect(withResources.verify(sign({ ...service, aud: ORDERS, client_id: 'client-1', scope: '' }))).resolves.toMatchObject({ kind: 'service', audience: ORDERS, clientId: 'client-1' });
      await expect(withResources.verify(sign(user))).resolves.toMatchObject({ kind: 'user', audience: 'access-control' });
    });

    it.each([
      ['a user’s token for a resource server (none is issued)', () => sign({ ...user, aud: ORDERS })],
      ['a service’s token for a server not listed', () => sign({ ...service, aud: 'https://evil.example.com', client_id: 'client-1', scope: '' })],
      ['a service’s token for a near miss of a listed one', () => sign({ ...service, aud: `${ORDERS}/`, client_id: 'client-1', scope: '' })],
    ])('answers null to %s', async (_what, token) => {
      await expect(withResources.verify(token())).resolves.toBeNull();
    });

    it('without the setting, a listed server’s token is another audience: null', async () => {
      await expect(verifier.verify(sign({ ...service, aud: ORDERS, client_id: 'client-1', scope: '' }))).resolves.toBeNull();
    });
  });
});
