import { type MigrationInterface, type QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * Passkeys (#24): WebAuthn credentials registered as second factors (several per user, named), and the challenges
 * handed to browsers (SHA-256 only, single use, minutes long), in the database so every replica shares them.
 * Additive: two new tables, each row going with its user.
 */
export class Passkeys1765600000000 implements MigrationInterface {
  name = 'Passkeys1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    const ofUser = (table: string) =>
      new TableForeignKey({ name: `fk_${table}_user`, columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE' });

    await queryRunner.createTable(
      new Table({
        name: 'webauthn_credentials',
        columns: [
          c.id(),
          c.id('user_id'),
          c.text('name', 64),
          // base64url of at most 1023 bytes (WebAuthn §5.8.3): 1364 characters; ascii, so the unique index fits.
          c.ascii('credential_id', 1400),
          c.longText('public_key'),
          { name: 'counter', type: 'bigint', default: 0 },
          c.ascii('transports', 255),
          c.datetime('created_at'),
          c.datetime('last_used_at', true),
        ],
        foreignKeys: [ofUser('webauthn_credentials')],
      }),
    );
    await queryRunner.createIndex('webauthn_credentials', new TableIndex({ name: 'uq_webauthn_credentials_credential', columnNames: ['credential_id'], isUnique: true }));
    await queryRunner.createIndex('webauthn_credentials', new TableIndex({ name: 'ix_webauthn_credentials_user', columnNames: ['user_id'] }));
    await queryRunner.createTable(
      new Table({
        name: 'webauthn_challenges',
        columns: [
          { ...c.ascii('challenge_hash', 64), isPrimary: true },
          c.id('user_id'),
          c.ascii('ceremony', 16),
          c.datetime('created_at'),
          c.datetime('expires_at'),
        ],
        foreignKeys: [ofUser('webauthn_challenges')],
      }),
    );
    await queryRunner.createIndex('webauthn_challenges', new TableIndex({ name: 'ix_webauthn_challenges_user', columnNames: ['user_id'] }));
    await queryRunner.createIndex('webauthn_challenges', new TableIndex({ name: 'ix_webauthn_challenges_expires', columnNames: ['expires_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webauthn_challenges');
    await queryRunner.dropTable('webauthn_credentials');
  }
}
