import type { MigrationInterface, QueryRunner } from 'typeorm';
import { recomputeIdentifierKeys } from './identifier-keys';

/**
 * Look-alike identifiers (#22): the stored keys become what the application now computes, composed (NFC) as
 * well as lower-cased, so "josé" typed with a combining accent is the same key as with a precomposed "é".
 * The columns are `utf8mb4_bin` on MySQL/MariaDB (binary on SQLite): no collation made the two equal before.
 * Users whose keys would become one keep theirs and are reported (`recomputeIdentifierKeys`); name keys (prefix
 * search, not unique) are recomputed alike.
 */
export class NormaliseIdentifiers1764700000000 implements MigrationInterface {
  name = 'NormaliseIdentifiers1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await recomputeIdentifierKeys(queryRunner, 'composed (NFC)');
  }

  /** Nothing to undo: a composed key is one the previous version reads and writes alike. */
  async down(): Promise<void> {}
}
