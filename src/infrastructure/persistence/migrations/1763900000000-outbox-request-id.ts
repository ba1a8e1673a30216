import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';
import { columnsFor } from './dialect';

/** The x-request-id of the request that caused an event, carried out as its `requestid` extension. Null for events from no request. */
export class OutboxRequestId1763900000000 implements MigrationInterface {
  name = 'OutboxRequestId1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    await queryRunner.addColumn('outbox_events', new TableColumn(c.ascii('request_id', 128, true)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('outbox_events', 'request_id');
  }
}
