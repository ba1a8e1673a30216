import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `login_attempts` rows are keyed by an HMAC of the name from now on (LoginAttemptKeys), never the name typed: the
 * rows keyed by names (a password typed as a username among them) go. What goes with them: every lockout counter
 * and lock under way starts over, and the record of the sign-in tickets used up (a ticket lives five minutes; a used
 * one's code, recovery code or passkey assertion is used up on its own, so nothing completes twice). Replicas of the
 * previous version keep writing name-keyed rows until they stop: the rollout's minutes of them stay until a counter's
 * own reset, harmless and unread.
 */
export class KeyedLoginAttempts1766300000000 implements MigrationInterface {
  name = 'KeyedLoginAttempts1766300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM login_attempts');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The keyed rows mean nothing to the previous version: its counters start over as well.
    await queryRunner.query('DELETE FROM login_attempts');
  }
}
