import type { DataSource } from 'typeorm';
import type { BootstrapRecord } from '../../../src/application/ports/bootstrap-record.port';
import { BootstrapRecord1764900000000 } from '../../../src/infrastructure/persistence/migrations/1764900000000-bootstrap-record';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { SqliteWriteQueue } from '../../../src/infrastructure/persistence/typeorm/sqlite-write-queue';
import { TypeOrmBootstrapRecordStore } from '../../../src/infrastructure/persistence/typeorm/typeorm-bootstrap-record.store';
import { pendingUser } from '../../contract/contract-kit';
import { InMemoryBootstrapRecord } from '../../support/fakes/in-memory-bootstrap-record';
import { InMemoryUserRepository } from '../../support/fakes/in-memory-user.repository';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { ALL_TARGETS } from './database-targets';

const AT = new Date('2026-03-01T10:00:00.123Z');

/** What BootstrapRecord promises, on a database with no user yet; `addUser` stores one as the users repository does. */
function describeBootstrapRecordContract(name: string, make: () => Promise<{ record: BootstrapRecord; addUser(): Promise<void> }>): void {
  describe(`${name} honours the BootstrapRecord contract`, () => {
    it('has no record and no user at first', async () => {
      const { record } = await make();
      expect(await record.recordedAt()).toBeNull();
      expect(await record.hasAnyUser()).toBe(false);
    });

    it('keeps the first record to the millisecond; a second one changes nothing', async () => {
      const { record } = await make();
      await record.record(AT);
      await record.record(new Date('2027-01-01T00:00:00.000Z'));
      expect((await record.recordedAt())?.toISOString()).toBe(AT.toISOString());
    });

    it('takes two records at once without failing', async () => {
      const { record } = await make();
      await Promise.all([record.record(AT), record.record(AT)]);
      expect((await record.recordedAt())?.toISOString()).toBe(AT.toISOString());
    });

    it('sees a user once one is stored', async () => {
      const { record, addUser } = await make();
      await addUser();
      expect(await record.hasAnyUser()).toBe(true);
    });
  });
}

describeBootstrapRecordContract('InMemoryBootstrapRecord', async () => {
  const users = new InMemoryUserRepository();
  return { record: new InMemoryBootstrapRecord(users), addUser: () => users.add(pendingUser()) };
});

describe.each(ALL_TARGETS)('the bootstrap record on $name', (target) => {
  let dataSource: DataSource;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ dataSource, dispose } = await target.open());
    await runMigrations(dataSource);
  });

  afterAll(async () => dispose?.());

  const empty = async () => {
    for (const table of ['invitations', 'password_resets', 'refresh_tokens', 'outbox_events', 'bootstrap_records', 'users']) {
      await dataSource.query(`DELETE FROM ${table}`);
    }
  };

  describeBootstrapRecordContract('TypeOrmBootstrapRecordStore', async () => {
    await empty();
    const adapters = new TypeOrmAdapters(dataSource);
    const record = new TypeOrmBootstrapRecordStore({ manager: dataSource.manager, sqliteWriteQueue: new SqliteWriteQueue({ dataSource }) });
    return { record, addUser: () => adapters.users().add(pendingUser()) };
  });

  it('the migration records the bootstrap of a database that has users (it was bootstrapped before), and of no empty one', async () => {
    const migration = new BootstrapRecord1764900000000();
    const runner = dataSource.createQueryRunner();
    try {
      await empty();
      await migration.down(runner);
      await migration.up(runner);
      const record = new TypeOrmBootstrapRecordStore({ manager: dataSource.manager, sqliteWriteQueue: new SqliteWriteQueue({ dataSource }) });
      expect(await record.recordedAt()).toBeNull();

      const user = pendingUser();
      await new TypeOrmAdapters(dataSource).users().add(user);
      await migration.down(runner);
      await migration.up(runner);
      expect((await record.recordedAt())?.toISOString()).toBe(user.invitedAt.toISOString());
    } finally {
      await runner.release();
    }
  });
});
