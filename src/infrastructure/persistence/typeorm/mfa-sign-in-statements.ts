import type { DataSource, EntityManager, EntityMetadata } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { SecondStepFactors, TicketHolder } from '../../../application/ports/mfa-store.port';
import type { MfaFactor } from '../../../domain/mfa/mfa';
import { type MfaFactorRecord, MfaFactorSchema, RecoveryCodeSchema, toFactor, WebAuthnCredentialSchema } from './mfa-records';
import { LoginAttemptSchema } from './records';
import { passkeyRows } from './typeorm-passkey-rows';
import { toDomain } from './user-record-mapping';
import { userTableShape } from './user-read-statements';
import { type PreparedRead, preparedReads } from './prepared-reads';

/**
 * The statements of a sign-in's second factor, written once per DataSource as plain SQL: both steps run them on
 * every sign-in of a user with a factor (and the password step's read on every sign-in), where TypeORM's query
 * builder costs more than the statements, and each round trip saved is a statement less for the database.
 * Each runs on the manager given: the data source's, or a unit of work's transaction's.
 */
export class MfaSignInStatements {
  private readonly dataSource: DataSource;
  private readonly q: (name: string) => string;
  private readonly factorColumns: ColumnMetadata[];
  private readonly user: ReturnType<typeof userTableShape>;
  private readonly secondStepSql: string;
  private readonly holderSql: string;
  private readonly useTimeStepSql: string;
  /** The two reads of every sign-in (a user's factors, a ticket's holder), prepared once per connection. */
  private readonly read: PreparedRead;

  constructor(dataSource: DataSource) {
    this.dataSource = dataSource;
    this.read = preparedReads(dataSource);
    this.q = (name) => dataSource.driver.escape(name);
    const q = this.q;
    const factors = dataSource.getMetadata(MfaFactorSchema);
    const codes = dataSource.getMetadata(RecoveryCodeSchema);
    const passkeys = dataSource.getMetadata(WebAuthnCredentialSchema);
    const attempts = dataSource.getMetadata(LoginAttemptSchema);
    this.factorColumns = factors.columns;
    this.user = userTableShape(dataSource);
    const col = (metadata: EntityMetadata, property: string) => q(metadata.findColumnWithPropertyName(property)!.databaseName);
    const [fUser, fCreated, fId, fLast] = [col(factors, 'userId'), col(factors, 'createdAt'), col(factors, 'id'), col(factors, 'lastUsedStep')];
    const aliased = (prefix: string, columns: ColumnMetadata[]) => columns.map((c) => `${prefix}.${q(c.databaseName)} AS ${q(`${prefix}_${c.databaseName}`)}`).join(', ');

    // One row at least (the counts), and one per factor: a user without any factor costs this statement alone.
    this.secondStepSql =
      `SELECT r.recovery_codes AS recovery_codes, r.passkeys AS passkeys, ${aliased('f', this.factorColumns)} FROM (SELECT ` +
      `(SELECT COUNT(*) FROM ${q(codes.tableName)} WHERE ${col(codes, 'userId')} = ? AND ${col(codes, 'usedAt')} IS NULL) AS recovery_codes, ` +
      `(SELECT COUNT(*) FROM ${q(passkeys.tableName)} WHERE ${col(passkeys, 'userId')} = ?) AS passkeys) r ` +
      `LEFT JOIN ${q(factors.tableName)} f ON f.${fUser} = ? ORDER BY f.${fCreated} ASC, f.${fId} ASC`;
    // A ticket's holder, the holder's factors and its account's tickets' use: what the second step reads, at once (one
    // row at least, the use; one per factor of a holder that exists).
    this.holderSql =
      `SELECT a.${col(attempts, 'ticketsUsedThrough')} AS used_through, a.${col(attempts, 'factorFailures')} AS factor_failures, ` +
      `${aliased('u', this.user.columns)}, ${aliased('f', this.factorColumns)} FROM (SELECT 1 AS one) r ` +
      `LEFT JOIN ${q(attempts.tableName)} a ON a.${col(attempts, 'usernameKey')} = ? ` +
      `LEFT JOIN ${this.user.table} u ON u.${this.user.id} = ? LEFT JOIN ${q(factors.tableName)} f ON f.${fUser} = u.${this.user.id} ` +
      `ORDER BY f.${fCreated} ASC, f.${fId} ASC`;
    this.useTimeStepSql = `UPDATE ${q(factors.tableName)} SET ${fLast} = ? WHERE ${fId} = ? AND (${fLast} IS NULL OR ${fLast} < ?)`;
  }

  async secondStepOf(manager: EntityManager, userId: string, withPasskeys: boolean): Promise<SecondStepFactors> {
    const rows = await this.read(manager, this.secondStepSql, [userId, userId, userId]);
    const first = rows[0] ?? {};
    const factors = rows.filter((row) => row.f_id !== null && row.f_id !== undefined).map((row) => this.factor(row, 'f'));
    const passkeys = withPasskeys && Number(first.passkeys ?? 0) > 0 ? await passkeyRows.of(manager, userId) : [];
    return { factors, passkeys, recoveryCodes: Number(first.recovery_codes ?? 0) };
  }

  /** `rowKey`: the account's lockout row (LoginAttemptKeys), whose tickets' use is read with the holder. */
  async ticketHolder(manager: EntityManager, userId: string, rowKey: string): Promise<TicketHolder> {
    const rows = await this.read(manager, this.holderSql, [rowKey, userId]);
    const first = rows[0] ?? {};
    const present = first[`u_${this.user.columns.find((column) => column.propertyName === 'id')!.databaseName}`];
    const record = present === null || present === undefined ? null : this.user.hydrate(unprefixed(first, 'u'));
    const holder = record && record.status !== 'deleted' ? toDomain(record) : null;
    const factors = rows.filter((row) => row.f_id !== null && row.f_id !== undefined).map((row) => this.factor(row, 'f'));
    const used = first.used_through;
    return { holder, factors, ticketsUsedThrough: used === null || used === undefined ? null : Number(used), factorFailures: Number(first.factor_failures ?? 0) };
  }

  async useTimeStep(manager: EntityManager, factorId: string, step: number): Promise<boolean> {
    return (await this.run(manager, this.useTimeStepSql, [step, factorId, step])) > 0;
  }

  private factor(row: Record<string, unknown>, prefix: string): MfaFactor {
    return toFactor(this.hydrate(row, prefix, this.factorColumns) as unknown as MfaFactorRecord);
  }

  private hydrate(row: Record<string, unknown>, prefix: string, columns: ColumnMetadata[]): Record<string, unknown> {
    const record: Record<string, unknown> = {};
    for (const c of columns) record[c.propertyName] = this.dataSource.driver.prepareHydratedValue(row[`${prefix}_${c.databaseName}`], c);
    return record;
  }

  /** Runs a write on the manager's connection (its transaction's, or one of the pool's): the rows it changed. */
  private async run(manager: EntityManager, sql: string, parameters: unknown[]): Promise<number> {
    if (manager.queryRunner) return (await manager.queryRunner.query(sql, parameters, true)).affected ?? 0;
    const runner = this.dataSource.createQueryRunner();
    try {
      return (await runner.query(sql, parameters, true)).affected ?? 0;
    } finally {
      await runner.release();
    }
  }
}

/** The row's columns of one table of a join, under their own names (`u_email` → `email`). */
function unprefixed(row: Record<string, unknown>, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const start = prefix.length + 1;
  for (const [key, value] of Object.entries(row)) if (key.startsWith(`${prefix}_`)) out[key.slice(start)] = value;
  return out;
}

/** The sign-in's statements of each data source: built once (from its metadata), shared by every store on it. */
const byDataSource = new WeakMap<DataSource, MfaSignInStatements>();

export function mfaSignInStatementsOf(dataSource: DataSource): MfaSignInStatements {
  let statements = byDataSource.get(dataSource);
  if (!statements) {
    statements = new MfaSignInStatements(dataSource);
    byDataSource.set(dataSource, statements);
  }
  return statements;
}
