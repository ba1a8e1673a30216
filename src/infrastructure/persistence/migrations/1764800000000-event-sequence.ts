import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * A per-aggregate event sequence decided by the database (issue #22): `event_sequences` holds the last
 * number each user (or role) was given, and every outbox row carries its number (`aggregate_sequence`).
 * The relay publishes one aggregate's events in that order instead of by id: ids are UUIDv7 from each
 * replica's own clock, numbers are taken under the aggregate's row lock, so they follow commit order.
 *
 * Additive: a replica of the previous version keeps writing rows (with no number; the relay puts those
 * first, in id order) while this one rolls out. Rows already in the outbox are numbered per aggregate in
 * id order, the order they were published in so far, and each counter starts after its aggregate's last.
 */
export class EventSequence1764800000000 implements MigrationInterface {
  name = 'EventSequence1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'event_sequences',
        columns: [{ ...c.id('aggregate_id'), isPrimary: true }, c.integer('last_sequence', 0)],
      }),
    );
    await queryRunner.addColumn('outbox_events', new TableColumn({ name: 'aggregate_sequence', type: 'int', isNullable: true }));

    if (c.mysqlFamily) {
      // MySQL refuses a correlated subquery on the table being updated; a derived table with a window
      // function is materialised first, so it may be joined.
      await queryRunner.query(
        'UPDATE outbox_events o JOIN (SELECT id, ROW_NUMBER() OVER (PARTITION BY aggregate_id ORDER BY id) AS n FROM outbox_events) r ' +
          'ON r.id = o.id SET o.aggregate_sequence = r.n',
      );
    } else {
      await queryRunner.query(
        'UPDATE outbox_events SET aggregate_sequence = (SELECT COUNT(*) FROM outbox_events o2 ' +
          'WHERE o2.aggregate_id = outbox_events.aggregate_id AND o2.id <= outbox_events.id)',
      );
    }
    await queryRunner.query(
      'INSERT INTO event_sequences (aggregate_id, last_sequence) ' +
        'SELECT aggregate_id, MAX(aggregate_sequence) FROM outbox_events WHERE aggregate_sequence IS NOT NULL GROUP BY aggregate_id',
    );
    // The relay's check "no earlier unpublished event of this aggregate" reads this index alone.
    await queryRunner.createIndex(
      'outbox_events',
      new TableIndex({ name: 'ix_outbox_aggregate_sequence', columnNames: ['aggregate_id', 'published_at', 'aggregate_sequence'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('outbox_events', 'ix_outbox_aggregate_sequence');
    await queryRunner.dropColumn('outbox_events', 'aggregate_sequence');
    await queryRunner.dropTable('event_sequences');
  }
}
