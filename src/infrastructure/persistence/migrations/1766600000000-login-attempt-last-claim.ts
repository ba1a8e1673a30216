import { type MigrationInterface, type QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * `login_attempts.last_claim_at`: when the account's counters last counted a claim. Every name tried makes a row,
 * known or not (the claim costs the same either way, so its time tells nothing), and until now no row was ever deleted
 * but a deleted user's: anyone could grow the table by a row per name guessed. The purge (TypeOrmLoginAttempts)
 * deletes the rows idle for longer than loginAttemptsIdleSeconds that nothing else keeps, by this index. Rows already
 * there are left without a time (so the migration is no long update of a table that may hold millions of rows, every
 * claim waiting behind it): the purge stamps them, a batch at a time, and they count from then, as do the rows a
 * replica of the earlier version still makes during a rolling upgrade.
 */
export class LoginAttemptLastClaim1766600000000 implements MigrationInterface {
  name = 'LoginAttemptLastClaim1766600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('login_attempts', new TableColumn(columnsFor(queryRunner).datetime('last_claim_at', true)));
    await queryRunner.createIndex('login_attempts', new TableIndex({ name: 'ix_login_attempts_last_claim_at', columnNames: ['last_claim_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('login_attempts', 'ix_login_attempts_last_claim_at');
    await queryRunner.dropColumn('login_attempts', 'last_claim_at');
  }
}
