import type { DataSource } from 'typeorm';
import { hasPendingMigrations } from '../persistence/typeorm/migrate';

export interface ReadinessReport {
  ready: boolean;
  checks: { database: 'up' | 'down'; migrations: 'applied' | 'pending' | 'unknown'; draining: boolean };
}

/** What /readyz reports: the database answers, its schema is current, and we are not shutting down. */
export class Readiness {
  private draining = false;
  private migrated = false;

  constructor(private readonly dataSource: DataSource) {}

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
      await this.dataSource.query('SELECT 1');
      database = 'up';
      // Once applied, migrations do not un-apply: stop asking.
      if (!this.migrated) this.migrated = !(await hasPendingMigrations(this.dataSource));
      migrations = this.migrated ? 'applied' : 'pending';
    } catch {
      database = 'down';
    }
    return {
      ready: database === 'up' && migrations === 'applied' && !this.draining,
      checks: { database, migrations, draining: this.draining },
    };
  }
}
