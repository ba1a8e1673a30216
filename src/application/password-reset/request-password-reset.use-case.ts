import { passwordResetRequested } from '../../domain/users/password-reset';
import { Email } from '../../domain/users/email';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';

/**
 * Someone asks for a password-reset mail for an address. Only an active (joined, not deactivated)
 * user gets one: `PasswordResetRequested` is recorded through the outbox, and the mailer issues the
 * token when it sends the mail (the event carries none). The caller learns nothing: every address,
 * known or not, runs the same transaction with the same look-up, and the answer never differs.
 */
export class RequestPasswordResetUseCase {
  private readonly unitOfWork: UnitOfWork;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;

  constructor(deps: { unitOfWork: UnitOfWork; clock: Clock; idGenerator: IdGenerator }) {
    this.unitOfWork = deps.unitOfWork;
    this.clock = deps.clock;
    this.ids = deps.idGenerator;
  }

  async execute(input: { email: string }): Promise<void> {
    const email = Email.parse(input.email);
    // Built inside the closure: a unit of work may run it again after a deadlock.
    await this.unitOfWork.run(async ({ users, outbox }) => {
      const { items } = await users.list({ offset: 0, limit: 1 }, { emailKey: email.normalized });
      const user = items[0];
      if (!user || !user.isJoined || user.status !== 'active') return;
      await outbox.append([
        passwordResetRequested({ id: this.ids.next(), userId: user.id, email: user.email, name: user.name, now: this.clock.now() }),
      ]);
    });
  }
}
