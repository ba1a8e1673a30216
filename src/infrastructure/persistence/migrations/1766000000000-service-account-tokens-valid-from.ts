import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

/**
 * `service_accounts.tokens_valid_from`: the first second (since the epoch) whose tokens are the account's, set when it
 * is disabled, so enabling it again does not bring back the tokens that disabling ended (NULL: never disabled since).
 * Additive. A replica of the earlier version neither writes nor reads it: during a rolling update, a disabling
 * made there leaves it NULL (its tokens come back if the account is enabled again, as before), and a token that
 * version checks is judged without it.
 */
export class ServiceAccountTokensValidFrom1766000000000 implements MigrationInterface {
  name = 'ServiceAccountTokensValidFrom1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('service_accounts', new TableColumn({ name: 'tokens_valid_from', type: 'bigint', isNullable: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('service_accounts', 'tokens_valid_from');
  }
}
