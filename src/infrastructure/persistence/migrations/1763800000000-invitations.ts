import { type MigrationInterface, type QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { columnsFor } from './dialect';

export class Invitations1763800000000 implements MigrationInterface {
  name = 'Invitations1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);

    // One live invitation per user (the primary key): issuing a new one replaces the old.
    await queryRunner.createTable(
      new Table({
        name: 'invitations',
        columns: [
          { ...c.id('user_id'), isPrimary: true },
          c.ascii('token_hash', 64),
          c.datetime('created_at'),
          c.datetime('expires_at'),
          c.datetime('used_at', true),
        ],
        uniques: [{ name: 'uq_invitations_token_hash', columnNames: ['token_hash'] }],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_invitations_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'processed_events',
        columns: [
          { ...c.ascii('consumer', 64), isPrimary: true },
          { ...c.id('event_id'), isPrimary: true },
          c.datetime('processed_at'),
        ],
      }),
    );

    // The relay publishes only the oldest unpublished event of each user, so one user's events keep their order.
    await queryRunner.createIndex(
      'outbox_events',
      new TableIndex({ name: 'ix_outbox_aggregate', columnNames: ['aggregate_id', 'published_at', 'id'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('outbox_events', 'ix_outbox_aggregate');
    await queryRunner.dropTable('processed_events');
    await queryRunner.dropTable('invitations');
  }
}
