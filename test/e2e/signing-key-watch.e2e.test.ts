import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SigningKeyWatch } from '../../src/infrastructure/crypto/signing-key-watch';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { eventuallyDefined } from '../support/eventually-logged';
import { startTestApp, type TestApp } from '../support/test-app';
import { decodeJwt } from '../support/tokens';

const pem = (key: KeyObject) => key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString();
const pair = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingWith = (keys: { privateKey: KeyObject; publicKey: KeyObject }) => ({ JWT_PRIVATE_KEY: pem(keys.privateKey), JWT_PUBLIC_KEY: pem(keys.publicKey) });
type Line = { level: number; msg: string; kid?: string };

/**
 * Replicas of one database that sign with keys the others do not accept refuse each other's tokens (401). Each
 * replica notes the key it signs with and says, in its log, when another signs with one it does not accept
 * (SigningKeyWatch). MariaDB here and MySQL 8 by the same statements; SQLite has one process and no watch.
 */
describe('the signing keys in use, compared with the ones a replica accepts', () => {
  const [first, second] = [pair(), pair()];
  let a: TestApp;
  const replicas: TestApp[] = [];
  /** A replica of `a`'s database with these settings, logging at debug, and its lines. */
  const replica = async (env: Record<string, string>) => {
    const lines: string[] = [];
    const started = await startTestApp({ ...env, LOG_LEVEL: 'debug' }, {}, a.database, { write: (line) => lines.push(line) });
    replicas.push(started);
    const logged = () => lines.map((line) => JSON.parse(line) as Line).filter((line) => line.msg.includes('sign with') || line.msg.includes('signs tokens with'));
    return { app: started, logged };
  };

  beforeAll(async () => {
    a = await startTestApp(signingWith(first));
  });
  // Each replica notes its key again every minute: closed after its test, so none notes one into the next test's table.
  afterEach(async () => {
    for (const app of replicas.splice(0)) await app.api.close();
  });
  afterAll(async () => a.close());

  it('says at start that another replica signs with a key this one refuses, naming it, and says nothing of the kind where every key is accepted', async () => {
    const firstKid = decodeJwt(await a.signIn()).header.kid;

    const other = await replica(signingWith(second));
    const error = await eventuallyDefined(() => other.logged().find((line) => line.level === 50));
    expect(error).toMatchObject({ kid: firstKid, msg: expect.stringContaining('JWT_NEXT_PUBLIC_KEYS') });
    // What the line warns of: the first replica's token is refused there.
    expect((await other.app.request('GET', '/v1/me', { token: await a.signIn() })).status).toBe(401);

    // Mid-rotation, each accepting the other's key: both keys in use, no error.
    const switched = await replica({ ...signingWith(second), JWT_PREVIOUS_PUBLIC_KEYS: pem(first.publicKey) });
    const published = await replica({ ...signingWith(first), JWT_NEXT_PUBLIC_KEYS: pem(second.publicKey) });
    for (const { logged } of [switched, published]) {
      const line = await eventuallyDefined(() => logged().find((l) => l.level <= 30));
      expect(line).toMatchObject({ level: 20, inUse: 2 });
      expect(logged().filter((l) => l.level >= 40)).toEqual([]);
    }
  });

  it('forgets a key no replica has noted within the longest token lifetime, reports a key once while it stays, and says when it has gone', async () => {
    const { dataSource, signingKey, verificationKeys } = a.api.container.cradle;
    const lines: string[] = [];
    const watch = new SigningKeyWatch({
      dataSource,
      signingKey,
      verificationKeys,
      logger: createLogger('info', { write: (line) => lines.push(line) }),
      longestTokenSeconds: 900,
      everyMs: 60_000,
    });
    const at = (minutes: number) => new Date(Date.now() + minutes * 60_000);
    const stranger = 'kid-of-a-replica-elsewhere';
    await dataSource.query('DELETE FROM signing_keys_in_use');
    await dataSource.query('INSERT INTO signing_keys_in_use (kid, alg, last_seen_at) VALUES (?, ?, ?)', [stranger, 'ES256', at(0)]);

    expect(await watch.check(at(1))).toEqual([stranger]);
    expect(await watch.check(at(2))).toEqual([stranger]);
    // 15 minutes of tokens and a minute of the watch's own period after it was last noted: still in use, then not.
    expect(await watch.check(at(15.9))).toEqual([stranger]);
    expect(await watch.check(at(16.1))).toEqual([]);

    const said = lines.map((line) => JSON.parse(line) as Line);
    expect(said.filter((line) => line.level === 50).map((line) => line.kid)).toEqual([stranger]);
    expect(said.at(-1)).toMatchObject({ level: 30, msg: expect.stringContaining('accepted by this process again') });
    // Its row goes a week after it was last noted.
    await watch.check(at(7 * 24 * 60 + 1));
    expect(await dataSource.query('SELECT kid FROM signing_keys_in_use WHERE kid = ?', [stranger])).toEqual([]);
  });
});
