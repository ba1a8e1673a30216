import { type MigrationInterface, type QueryRunner, TableIndex } from 'typeorm';

/**
 * `processed_events` by `processed_at`: the outbox's retention sweep deletes the records of mail events handled longer
 * ago than PROCESSED_EVENT_RETENTION_MS (a mail event that old is not mailed again: mail-event-handler.ts), reading
 * them by this index instead of the whole table. Until now a record was kept for good, one per mail sent.
 */
export class ProcessedEventsRetention1766700000000 implements MigrationInterface {
  name = 'ProcessedEventsRetention1766700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('processed_events', new TableIndex({ name: 'ix_processed_events_processed_at', columnNames: ['processed_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('processed_events', 'ix_processed_events_processed_at');
  }
}
