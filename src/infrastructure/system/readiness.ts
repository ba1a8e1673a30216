import type { DataSource } from 'typeorm';
import { hasPendingMigrations } from '../persistence/typeorm/migrate';
import { DATABASE_PROBE_TIMEOUT_MS, within } from './within';

export interface ReadinessReport {
  ready: boolean;
  checks: { database: 'up' | 'down'; migrations: 'applied' | 'pending' | 'unknown'; draining: boolean };
}

/** What /readyz reports: the database answers, its schema is current, and we are not shutting down. */
export class Readiness {
  private draining = false;
  private migrated = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly probeTimeoutMs = DATABASE_PROBE_TIMEOUT_MS,
  ) {}

  /**
   * Whether the database answers `SELECT 1` within the probe's timeout. A database that takes connections and never
   * answers (a partition) counts as down after that time, not after the pool's 10 s connect timeout.
   */
  databaseAnswers(): Promise<boolean> {
    return within(this.dataSource.query('SELECT 1'), this.probeTimeoutMs, 'database probe').then(
      () => true,
      () => false,
    );
  }

  startDraining(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async check(): Promise<ReadinessReport> {
    let database: 'up' | 'down' = 'down';
    let migrations: ReadinessReport['checks']['migrations'] = 'unknown';
    try {
      if (await this.databaseAnswers()) {
        database = 'up';
        // Once applied, migrations do not un-apply: stop asking.
        if (!this.migrated) this.migrated = !(await hasPendingMigrations(this.dataSource));
        migrations = this.migrated ? 'applied' : 'pending';
      }
    } catch {
      database = 'down';
    }
    return {
      ready: database === 'up' && migrations === 'applied' && !this.draining,
      checks: { database, migrations, draining: this.draining },
    };
  }
}
