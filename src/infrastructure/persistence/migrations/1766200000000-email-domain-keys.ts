import type { MigrationInterface, QueryRunner } from 'typeorm';
import { recomputeIdentifierKeys } from './identifier-keys';

/**
 * An address's domain is keyed as DNS reads it (`Email.normalize`): `ada@ｅｘａｍｐｌｅ.com` and `ada@example.com`, or
 * `ada@bücher.de` and `ada@xn--bcher-kva.de`, are one mailbox, and until now were two keys, so two accounts. The
 * stored e-mail keys are recomputed; users whose keys would become one keep theirs and are reported, as when keys
 * were first composed (`recomputeIdentifierKeys`; DECISIONS.md, "Look-alike e-mails and usernames").
 */
export class EmailDomainKeys1766200000000 implements MigrationInterface {
  name = 'EmailDomainKeys1766200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await recomputeIdentifierKeys(queryRunner, 'its domain is read as DNS reads it');
  }

  /**
   * Not undone: the previous keys are not computed here any more. Under the previous version, the users of an
   * internationalised domain are then found by its ASCII spelling alone; nothing else changes.
   */
  async down(): Promise<void> {}
}
