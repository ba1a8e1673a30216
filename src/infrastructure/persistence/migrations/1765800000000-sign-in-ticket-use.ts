import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

/**
 * Sign-in tickets become sealed tokens (#24, SignInTickets): none is stored, and their single use is kept with the
 * account's lockout counters, `login_attempts.tickets_used_through`, the issue time (microseconds since the
 * epoch, SignInTicketClaims.issuedAtMicros) up to which the account's tickets are used up (NULL: none was). Additive. During a rolling update a replica of the earlier version issues and
 * reads stored tickets (mfa_challenges, kept for it), which this version does not open: a sign-in whose two steps
 * land on replicas of different versions signs in again.
 */
export class SignInTicketUse1765800000000 implements MigrationInterface {
  name = 'SignInTicketUse1765800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('login_attempts', new TableColumn({ name: 'tickets_used_through', type: 'bigint', isNullable: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('login_attempts', 'tickets_used_through');
  }
}
