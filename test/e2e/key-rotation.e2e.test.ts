import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/test-app';
import { decodeJwt } from '../support/tokens';

const pem = (key: KeyObject) => key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString();

/**
 * docs/SECURITY.md, "Rotating the signing key", as a rolling deployment runs it: replicas of one database, some on the
 * old settings while others take the new. Step 1 publishes the key to come (JWT_NEXT_PUBLIC_KEYS) on every replica;
 * step 2 switches each replica to signing with it, the old public key retired (JWT_PREVIOUS_PUBLIC_KEYS); step 3
 * drops the old key. While step 2 rolls out, a token signed by a switched replica reaches replicas that are not
 * switched yet: they accept it because step 1 gave them its key. A replica that never had step 1 refuses it (401),
 * which is why switching straight to the new key, as this document once said, signed people out mid-rollout.
 */
describe('rotating the signing key one replica at a time', () => {
  const [oldKey, newKey] = [generateKeyPairSync('ec', { namedCurve: 'P-256' }), generateKeyPairSync('rsa', { modulusLength: 2048 })];
  const signingWith = (pair: { privateKey: KeyObject; publicKey: KeyObject }) => ({ JWT_PRIVATE_KEY: pem(pair.privateKey), JWT_PUBLIC_KEY: pem(pair.publicKey) });
  let before: TestApp;
  const replicas: TestApp[] = [];
  /** Another replica of `before`'s database with these settings (closed after the test, the database kept until `before` closes). */
  const replica = async (env: Record<string, string>) => {
    const started = await startTestApp(env, {}, before.database);
    replicas.push(started);
    return started;
  };
  const me = async (app: TestApp, token: string) => (await app.request('GET', '/v1/me', { token })).status;

  beforeAll(async () => {
    before = await startTestApp(signingWith(oldKey));
  });
  afterAll(async () => {
    for (const app of replicas) await app.api.close();
    await before.close();
  });

  it('keeps every token of every replica accepted on every replica while each switches, and refuses the old key once it is dropped', async () => {
    const kidOf = (token: string) => decodeJwt(token).header.kid as string;
    const oldToken = await before.signIn();

    // Step 1: the key to come is published beside the current one, and nothing is signed with it yet.
    const published = await replica({ ...signingWith(oldKey), JWT_NEXT_PUBLIC_KEYS: pem(newKey.publicKey) });
    const jwks = (await published.request('GET', '/.well-known/jwks.json')).body as { keys: { kid: string; alg: string }[] };
    expect(jwks.keys.map((key) => key.alg)).toEqual(['ES256', 'RS256']);
    const step1Token = await published.signIn();
    expect(kidOf(step1Token)).toBe(kidOf(oldToken));
    expect(jwks.keys[0]!.kid).toBe(kidOf(oldToken));

    // Step 2, under way: one replica signs with the new key while another still runs step 1's settings.
    const switched = await replica({ ...signingWith(newKey), JWT_PREVIOUS_PUBLIC_KEYS: pem(oldKey.publicKey) });
    const newToken = await switched.signIn();
    expect(kidOf(newToken)).toBe(jwks.keys[1]!.kid);
    expect(decodeJwt(newToken).header.alg).toBe('RS256');
    expect(await me(published, newToken)).toBe(200);
    expect(await me(switched, step1Token)).toBe(200);
    expect(await me(switched, oldToken)).toBe(200);
    // A replica that skipped step 1 refuses the switched replica's tokens: what step 1 is for.
    expect(await me(before, newToken)).toBe(401);

    // Step 3: the old key dropped, once its tokens have expired: an old-key token left over is refused.
    const done = await replica(signingWith(newKey));
    expect(await me(done, newToken)).toBe(200);
    expect(await me(done, oldToken)).toBe(401);
    expect(((await done.request('GET', '/.well-known/jwks.json')).body as { keys: unknown[] }).keys).toHaveLength(1);
  });

  it('refuses to start on a JWT_NEXT_PUBLIC_KEYS that holds no public key, naming it', async () => {
    await expect(replica({ ...signingWith(oldKey), JWT_NEXT_PUBLIC_KEYS: 'not a key' })).rejects.toThrow(/JWT_NEXT_PUBLIC_KEYS must hold one or more PEM public keys/);
  });
});
