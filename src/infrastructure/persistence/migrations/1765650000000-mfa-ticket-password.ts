import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * A wrong password for a user with a second factor gets a ticket too (#24), one that no code completes:
 * `mfa_challenges.password_matched` (1 for the right password, the default, as every existing ticket was; 0 for a
 * wrong one). Additive. Such a ticket is also stored used from the start, so a replica that predates this column
 * during a roll-out refuses it instead of completing it.
 */
export class MfaTicketPassword1765650000000 implements MigrationInterface {
  name = 'MfaTicketPassword1765650000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    await queryRunner.addColumn('mfa_challenges', new TableColumn(c.integer('password_matched', 1)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('mfa_challenges', 'password_matched');
  }
}
