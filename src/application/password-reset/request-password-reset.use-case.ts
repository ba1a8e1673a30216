import { ANONYMOUS, AuditActions } from '../../domain/audit/audit-entry';
import { type AuditRecorder, userTarget } from '../audit/audit-recorder';
import { passwordResetRequested } from '../../domain/users/password-reset';
import { Email } from '../../domain/users/email';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';

/** An accepted request: the look-up and the record, to run once the caller has its answer. */
export interface AcceptedPasswordResetRequest {
  /** Looks the address up and, for an active user, records `PasswordResetRequested`; safe to run again after a failure. */
  record(): Promise<void>;
}

/**
 * Someone asks for a password-reset mail for an address. Only an active (joined, not deactivated)
 * user gets one: `PasswordResetRequested` is recorded through the outbox, and the mailer issues the
 * token when it sends the mail (the event carries none). The caller learns nothing, by content or by
 * time: `execute` only checks the address's form, the same work for every address, and the look-up
 * (whose commit writes for a known address only) is handed back to run after the answer.
 */
export class RequestPasswordResetUseCase {
  private readonly unitOfWork: UnitOfWork;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly audit: AuditRecorder;

  constructor(deps: { auditRecorder: AuditRecorder; unitOfWork: UnitOfWork; clock: Clock; idGenerator: IdGenerator }) {
    this.audit = deps.auditRecorder;
    this.unitOfWork = deps.unitOfWork;
    this.clock = deps.clock;
    this.ids = deps.idGenerator;
  }

  async execute(input: { email: string }): Promise<AcceptedPasswordResetRequest> {
    const email = Email.parse(input.email);
    return { record: () => this.record(email) };
  }

  private async record(email: Email): Promise<void> {
    // Built inside the closure: a unit of work may run it again after a deadlock.
    await this.unitOfWork.run(async ({ users, outbox, audit }) => {
      const { items } = await users.list({ offset: 0, limit: 1 }, { emailKey: email.normalized });
      const user = items[0];
      const fact = { action: AuditActions.passwordResetRequested, actor: ANONYMOUS };
      if (!user || !user.isJoined || user.status !== 'active') {
        const code = !user ? 'unknown_address' : !user.isJoined ? 'not_joined' : 'deactivated';
        await this.audit.write(audit, { ...fact, outcome: 'failure', code, target: user ? userTarget(user) : { type: 'user', id: null, snapshot: email.normalized } });
        return;
      }
      await this.audit.write(audit, { ...fact, target: userTarget(user) });
      await outbox.append([
        passwordResetRequested({ id: this.ids.next(), userId: user.id, email: user.email, name: user.name, now: this.clock.now() }),
      ]);
    });
  }
}
