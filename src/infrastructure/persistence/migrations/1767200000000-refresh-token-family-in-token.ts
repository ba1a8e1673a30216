import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * `refresh_tokens.family_in_token`: 1 for a token that names its family (src/application/auth/refresh-token-format.ts).
 * Such a token's row goes once it has been used and the reuse grace has passed (TypeOrmRefreshTokenStore.rotate), a
 * reuse of it being caught by its family; until now every used token stayed to its family's end, up to 2 880 rows (2 MB)
 * for a session refreshed every 15 minutes for 30 days. Rows already there are 0 (their tokens name no family) and
 * stay until their family ends, as before, so a reuse of an earlier version's token is still caught by its row. The
 * column has a constant default: MySQL 8 and MariaDB add it without rewriting the table.
 */
export class RefreshTokenFamilyInToken1767200000000 implements MigrationInterface {
  name = 'RefreshTokenFamilyInToken1767200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('refresh_tokens', new TableColumn(columnsFor(queryRunner).integer('family_in_token', 0)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('refresh_tokens', 'family_in_token');
  }
}
