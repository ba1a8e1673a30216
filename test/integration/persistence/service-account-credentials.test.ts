import { generateKeyPairSync } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import type { DataSource } from 'typeorm';
import type { PublicJwk } from '../../../src/domain/service-accounts/public-jwk-set';
import { ServiceAccount } from '../../../src/domain/service-accounts/service-account';
import { ServiceAccountCredentialVerifier } from '../../../src/infrastructure/crypto/service-account-credential-verifier';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { ServiceAccounts1765000000000 } from '../../../src/infrastructure/persistence/migrations/1765000000000-service-accounts';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { TypeOrmServiceAccountRepository } from '../../../src/infrastructure/persistence/typeorm/typeorm-service-account.repository';
import { sha256Of } from '../../support/fakes/fake-secret-tokens';
import { FixedClock } from '../../support/fakes/fixed-clock';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { newId } from '../../contract/contract-kit';
import { ALL_TARGETS } from './database-targets';

const TOKEN_ENDPOINT = 'http://localhost:3000/oauth/token';
const audience = { tokenEndpointUrl: TOKEN_ENDPOINT, issuer: 'http://localhost:3000' };

/**
 * The credential verifier on each real database, as replicas share it: a client assertion's `jti` is
 * accepted once however many verifications race, and a secret's last use is written.
 */
describe.each(ALL_TARGETS)('service account credentials on $name', (target) => {
  let dataSource: DataSource;
  let dispose: () => Promise<void>;
  const clock = new FixedClock();
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...(publicKey.export({ format: 'jwk' }) as object), kid: 'k1' } as PublicJwk;
  let clientId: string;
  let secretId: string;

  beforeAll(async () => {
    ({ dataSource, dispose } = await target.open());
    await runMigrations(dataSource);
    const adapters = new TypeOrmAdapters(dataSource);
    clientId = newId();
    secretId = newId();
    await adapters.unitOfWork().run(async (scope) => {
      const account = ServiceAccount.create({
        id: newId(), clientId, name: 'racer', roleId: SEEDED_ROLES.member, secret: { id: secretId, hash: sha256Of('the-secret') }, by: newId(), now: clock.now(), newId,
      });
      account.replaceKeys([jwk], { by: newId(), now: clock.now(), newId });
      await scope.serviceAccounts.insert(account);
    });
  });

  afterAll(async () => dispose?.());

  /** A verifier as one replica has it: its own repository on the shared database. */
  const replica = () =>
    new ServiceAccountCredentialVerifier({
      serviceAccountCredentialStore: new TypeOrmServiceAccountRepository({ manager: dataSource.manager, sqliteWriteQueue: new TypeOrmAdapters(dataSource).services.sqliteWriteQueue }),
      clock,
    });

  it('accepts one assertion exactly once when two replicas verify it at the same time', async () => {
    const assertion = createSigner({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'ES256', kid: 'k1', clockTimestamp: clock.now().getTime() })({
      iss: clientId, sub: clientId, aud: TOKEN_ENDPOINT, exp: Math.floor(clock.now().getTime() / 1000) + 120, jti: newId(),
    });
    const [a, b] = [replica(), replica()];
    const answers = await Promise.all([a.authenticateWithAssertion(assertion, audience), b.authenticateWithAssertion(assertion, audience)]);
    expect(answers.filter((r) => r !== null)).toEqual([expect.objectContaining({ clientId, method: 'private_key_jwt' })]);
    expect(await a.authenticateWithAssertion(assertion, audience)).toBeNull();
  });

  it('accepts the secret, refuses another, and records the secret’s last use', async () => {
    const verifier = replica();
    expect(await verifier.authenticateWithSecret(clientId, 'wrong')).toBeNull();
    expect(await verifier.authenticateWithSecret(clientId, 'the-secret')).toMatchObject({ clientId, method: 'client_secret' });
    const rows = (await dataSource.query('SELECT last_used_at FROM service_account_secrets WHERE id = ?', [secretId])) as { last_used_at: unknown }[];
    expect(rows[0]!.last_used_at).not.toBeNull();
  });
});

describe.each(ALL_TARGETS)('the service-accounts migration on $name', (target) => {
  let dataSource: DataSource;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ dataSource, dispose } = await target.open());
    await runMigrations(dataSource);
  });
  afterAll(async () => dispose?.());

  const adminPermissions = async () =>
    ((await dataSource.query(
      "SELECT p.name AS name FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id WHERE rp.role_id = ? AND p.group_name = 'service-accounts' ORDER BY p.name",
      [SEEDED_ROLES.admin],
    )) as { name: string }[]).map((r) => r.name);
  const revision = async () => Number(((await dataSource.query('SELECT revision FROM role_catalogue WHERE id = 1')) as { revision: number }[])[0]!.revision);

  it('grants admin the new permissions, moves the role catalogue on, and goes down and up again', async () => {
    expect(await adminPermissions()).toEqual(['service-accounts:read', 'service-accounts:write']);
    const runner = dataSource.createQueryRunner();
    try {
      const migration = new ServiceAccounts1765000000000();
      const before = await revision();
      await migration.down(runner);
      expect(await adminPermissions()).toEqual([]);
      for (const table of ['service_accounts', 'service_account_secrets', 'client_assertion_jtis']) expect(await runner.hasTable(table)).toBe(false);
      await migration.up(runner);
      expect(await adminPermissions()).toEqual(['service-accounts:read', 'service-accounts:write']);
      expect(await revision()).toBe(before + 2);
      for (const table of ['service_accounts', 'service_account_secrets', 'client_assertion_jtis']) expect(await runner.hasTable(table)).toBe(true);
    } finally {
      await runner.release();
    }
  });
});
