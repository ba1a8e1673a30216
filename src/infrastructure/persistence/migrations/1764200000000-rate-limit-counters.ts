import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';
import { columnsFor } from './dialect';

/** The per-address and per-inviter throttles, counted in the database so every replica shares them. */
export class RateLimitCounters1764200000000 implements MigrationInterface {
  name = 'RateLimitCounters1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);

    // One row per throttled key, keyed by the SHA-256 of the key (hex): a fixed width, and no client
    // address or user id in clear. Every hit is one upsert of this row.
    await queryRunner.createTable(
      new Table({
        name: 'rate_limit_counters',
        columns: [{ ...c.ascii('counter_key', 64), isPrimary: true }, c.datetime('window_end'), c.integer('hits', 0)],
      }),
    );
    // The purge finds ended windows by this index instead of reading the whole table.
    await queryRunner.createIndex('rate_limit_counters', new TableIndex({ name: 'ix_rate_limit_counters_window_end', columnNames: ['window_end'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('rate_limit_counters');
  }
}
