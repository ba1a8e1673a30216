import type { EntityManager } from 'typeorm';
import type { BootstrapRecord } from '../../../application/ports/bootstrap-record.port';
import { isMysqlFamily } from './data-source';
import type { SqliteWriteQueue } from './sqlite-write-queue';

const ADMIN = 'admin';

/** The `bootstrap_records` table: one row, `admin`, once the bootstrap admin was made (or the database had users). */
export class TypeOrmBootstrapRecordStore implements BootstrapRecord {
  private readonly manager: EntityManager;
  private readonly queue: SqliteWriteQueue;

  constructor(deps: { manager: EntityManager; sqliteWriteQueue: SqliteWriteQueue }) {
    this.manager = deps.manager;
    this.queue = deps.sqliteWriteQueue;
  }

  async recordedAt(): Promise<Date | null> {
    const rows = (await this.queue.outside(this.manager, () =>
      this.manager.query('SELECT recorded_at AS at FROM bootstrap_records WHERE name = ?', [ADMIN]),
    )) as { at: Date | string }[];
    if (rows.length === 0) return null;
    const at = rows[0]!.at;
    // SQLite keeps the datetime as text in UTC ('YYYY-MM-DD HH:MM:SS.SSS').
    return at instanceof Date ? at : new Date(`${String(at).replace(' ', 'T')}Z`);
  }

  async record(at: Date): Promise<void> {
    const keep = isMysqlFamily(this.manager.connection) ? ' ON DUPLICATE KEY UPDATE name = name' : ' ON CONFLICT DO NOTHING';
    const value = isMysqlFamily(this.manager.connection) ? at : at.toISOString().replace('T', ' ').replace('Z', '');
    await this.queue.outside(this.manager, () =>
      this.manager.query(`INSERT INTO bootstrap_records (name, recorded_at) VALUES (?, ?)${keep}`, [ADMIN, value]),
    );
  }

  async hasAnyUser(): Promise<boolean> {
    const rows = (await this.queue.outside(this.manager, () => this.manager.query('SELECT 1 AS found FROM users LIMIT 1'))) as unknown[];
    return rows.length > 0;
  }
}
