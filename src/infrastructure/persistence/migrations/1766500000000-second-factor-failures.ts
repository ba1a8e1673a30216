import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * `login_attempts.factor_failures`: second-factor codes refused on tickets of a right password since the account's
 * last success. A lock starts `failures` over when its wait ends, not this: at the limit (MFA_MAX_FAILURES, 100 by
 * default) the second step refuses every code until the account succeeds again, which for someone locked out of
 * their second step is a password reset. Additive; every account starts at 0.
 */
export class SecondFactorFailures1766500000000 implements MigrationInterface {
  name = 'SecondFactorFailures1766500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('login_attempts', new TableColumn(columnsFor(queryRunner).integer('factor_failures', 0)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('login_attempts', 'factor_failures');
  }
}
