import type { BootstrapRecord } from '../../../src/application/ports/bootstrap-record.port';
import type { InMemoryUserRepository } from './in-memory-user.repository';
import { ioBoundary } from './io-boundary';

/** The record as a field; "any user" asks the users fake, which keeps erased users' rows as the table does. */
export class InMemoryBootstrapRecord implements BootstrapRecord {
  private at: Date | null = null;

  constructor(private readonly users: Pick<InMemoryUserRepository, 'rowCount'>) {}

  async recordedAt(): Promise<Date | null> {
    await ioBoundary();
    return this.at ? new Date(this.at) : null;
  }

  async record(at: Date): Promise<void> {
    await ioBoundary();
    this.at ??= new Date(at);
  }

  async hasAnyUser(): Promise<boolean> {
    await ioBoundary();
    return this.users.rowCount > 0;
  }
}
