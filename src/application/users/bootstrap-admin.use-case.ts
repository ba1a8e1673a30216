import type { BootstrapRecord } from '../ports/bootstrap-record.port';
import type { Clock } from '../ports/clock.port';
import type { CreateAdminInput, CreateAdminUseCase } from './create-admin.use-case';

export type BootstrapAdminOutcome =
  | { created: true; userId: string }
  /** A user with that username or e-mail exists (a replica starting alongside created it). */
  | { created: false; reason: 'exists' }
  /** This database had its bootstrap admin already, whether or not that account still exists. */
  | { created: false; reason: 'bootstrapped'; at: Date }
  /** Not bootstrapped yet, but the database holds users: an admin from the environment would be a stranger's. */
  | { created: false; reason: 'database-has-users' };

/**
 * The admin from ADMIN_* at start: created once per database, into a database with no user, and recorded.
 * A deliberately erased bootstrap admin never comes back, however often the environment still names it.
 * (The CLI's `create-admin` is an operator's explicit act and goes straight to CreateAdminUseCase.)
 */
export class BootstrapAdminUseCase {
  private readonly createAdmin: CreateAdminUseCase;
  private readonly record: BootstrapRecord;
  private readonly clock: Clock;

  constructor(deps: { createAdmin: CreateAdminUseCase; bootstrapRecord: BootstrapRecord; clock: Clock }) {
    this.createAdmin = deps.createAdmin;
    this.record = deps.bootstrapRecord;
    this.clock = deps.clock;
  }

  async execute(input: CreateAdminInput): Promise<BootstrapAdminOutcome> {
    const at = await this.record.recordedAt();
    if (at) return { created: false, reason: 'bootstrapped', at };
    if (await this.record.hasAnyUser()) {
      // Recorded, so that no later start creates it either: the users here were not made by this bootstrap.
      await this.record.record(this.clock.now());
      return { created: false, reason: 'database-has-users' };
    }
    const outcome = await this.createAdmin.execute(input);
    // Recorded after the admin is committed: a start that dies in between finds a user and records it then.
    await this.record.record(this.clock.now());
    return outcome;
  }
}
