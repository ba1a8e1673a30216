import { createHash } from 'node:crypto';
import type { DataSource, Repository } from 'typeorm';
import type { LoginAttempts } from '../../../application/ports/login-attempts.port';
import { type LockoutPolicy, lockoutWaitSeconds } from '../../../domain/users/lockout-policy';
import { uniqueViolationOn } from './database-errors';
import { type LoginAttemptRecord, LoginAttemptSchema } from './records';

type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * Lockout counters in the database, shared by every replica. Each step is one conditional
 * UPDATE, atomic on MySQL, MariaDB and SQLite alike: a claim increments `failures` only while
 * the account is unlocked and under the threshold, so parallel guesses cannot overshoot it.
 */
export class TypeOrmLoginAttempts implements LoginAttempts {
  private readonly repository: Repository<LoginAttemptRecord>;

  constructor(
    dataSource: DataSource,
    /** SQLite's one shared connection: writes take their turn with transactions (TypeOrmUnitOfWork.exclusive). */
    private readonly exclusive: Exclusive = (work) => work(),
  ) {
    this.repository = dataSource.getRepository(LoginAttemptSchema);
  }

  async claim(account: string, now: Date, policy: LockoutPolicy): Promise<boolean> {
    const accountKey = columnKey(account);
    // Always the same two statements, whether the row exists or not: the time of a sign-in does not
    // tell a username tried before from a new one.
    await this.ensureRow(accountKey);
    return this.tryClaim(accountKey, now, policy);
  }

  async failed(account: string, now: Date, policy: LockoutPolicy): Promise<void> {
    const accountKey = columnKey(account);
    const row = await this.repository.findOneBy({ usernameKey: accountKey });
    if (!row || row.failures < policy.threshold) return;
    const lockedUntil = new Date(now.getTime() + lockoutWaitSeconds(policy, row.lockouts) * 1000);
    // Only one of the attempts that saw the allowance spent locks the account: the lock resets `failures`.
    await this.exclusive(() =>
      this.repository
        .createQueryBuilder()
        .update()
        .set({ failures: 0, lockedUntil, lockouts: () => 'lockouts + 1' })
        .where('username_key = :key AND failures >= :threshold', { key: accountKey, threshold: policy.threshold })
        .execute(),
    );
  }

  async succeeded(account: string): Promise<void> {
    const accountKey = columnKey(account);
    await this.exclusive(() =>
      this.repository.update({ usernameKey: accountKey }, { failures: 0, lockedUntil: null, lockouts: 0 }),
    );
  }

  private async tryClaim(accountKey: string, now: Date, policy: LockoutPolicy): Promise<boolean> {
    const result = await this.exclusive(() =>
      this.repository
        .createQueryBuilder()
        .update()
        .set({ failures: () => 'failures + 1' })
        .where('username_key = :key AND failures < :threshold AND (locked_until IS NULL OR locked_until <= :now)', {
          key: accountKey,
          threshold: policy.threshold,
          now,
        })
        .execute(),
    );
    return (result.affected ?? 0) > 0;
  }

  private async ensureRow(accountKey: string): Promise<void> {
    try {
      await this.exclusive(() =>
        this.repository.insert({ usernameKey: accountKey, failures: 0, lockedUntil: null, lockouts: 0 }),
      );
    } catch (error) {
      // Another attempt created it meanwhile: that is the state we want.
      if (uniqueViolationOn(error) === null) throw error;
    }
  }
}

/** The row key: the lower-cased username, or its SHA-256 when longer than the column (no user has such a name). */
function columnKey(account: string): string {
  return account.length <= 64 ? account : createHash('sha256').update(account, 'utf8').digest('hex');
}
