import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';
import { REVOCATION_SHARDS } from '../typeorm/revocation-epochs';

/**
 * The revocation signal (#26): one counter per shard of subjects (users and service accounts, by a hash of
 * their id), moved on in the transaction of every change that can end or narrow a subject's access. Every
 * replica reads the whole table a few times a second (revocation-watch.ts) instead of reading the
 * subject at every request. Additive: the rows start at 0; nothing else changes.
 */
export class RevocationEpochs1765400000000 implements MigrationInterface {
  name = 'RevocationEpochs1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'revocation_epochs',
        columns: [
          { name: 'shard', type: 'int', isPrimary: true },
          { name: 'epoch', type: 'bigint', default: 0 },
        ],
      }),
    );
    const shards = Array.from({ length: REVOCATION_SHARDS }, (_, shard) => shard);
    await queryRunner.query(`INSERT INTO revocation_epochs (shard, epoch) VALUES ${shards.map(() => '(?, 0)').join(', ')}`, shards);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('revocation_epochs');
  }
}
