import type { DataSource, EntityManager, EntityMetadata } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { SecondStepFactors, SignInTicket } from '../../../application/ports/mfa-store.port';
import type { MfaChallenge, MfaFactor } from '../../../domain/mfa/mfa';
import { isMysqlFamily } from './data-source';
import { type MfaChallengeRecord, MfaChallengeSchema, type MfaFactorRecord, MfaFactorSchema, RecoveryCodeSchema, toChallenge, toFactor, WebAuthnCredentialSchema } from './mfa-records';
import { passkeyRows } from './typeorm-passkey-rows';
import { toDomain } from './user-record-mapping';
import { userTableShape } from './user-read-statements';

/** What a use of a time step together with its ticket came to (see MfaStore.useTimeStepAndTicket). */
export type StepAndTicketUse = 'used' | 'step_used' | 'ticket_used';

/**
 * The statements of a sign-in's second factor, written once per DataSource as plain SQL: both steps run them on
 * every sign-in of a user with a factor (and the password step's read on every sign-in), where TypeORM's query
 * builder costs more than the statements, and each round trip saved is a statement less for the database.
 * Each runs on the manager given: the data source's, or a unit of work's transaction's.
 */
export class MfaSignInStatements {
  private readonly dataSource: DataSource;
  private readonly mysql: boolean;
  private readonly q: (name: string) => string;
  private readonly factorColumns: ColumnMetadata[];
  private readonly challengeColumns: ColumnMetadata[];
  private readonly user: ReturnType<typeof userTableShape>;
  private readonly secondStepSql: string;
  private readonly ticketSql: string;
  private readonly addChallengeSql: string;
  private readonly useTimeStepSql: string;
  private readonly useChallengeSql: string;
  private readonly useBothSql: string;

  constructor(dataSource: DataSource) {
    this.dataSource = dataSource;
    this.mysql = isMysqlFamily(dataSource);
    this.q = (name) => dataSource.driver.escape(name);
    const q = this.q;
    const factors = dataSource.getMetadata(MfaFactorSchema);
    const challenges = dataSource.getMetadata(MfaChallengeSchema);
    const codes = dataSource.getMetadata(RecoveryCodeSchema);
    const passkeys = dataSource.getMetadata(WebAuthnCredentialSchema);
    this.factorColumns = factors.columns;
    this.challengeColumns = challenges.columns;
    this.user = userTableShape(dataSource);
    const col = (metadata: EntityMetadata, property: string) => q(metadata.findColumnWithPropertyName(property)!.databaseName);
    const [fUser, fCreated, fId, fLast] = [col(factors, 'userId'), col(factors, 'createdAt'), col(factors, 'id'), col(factors, 'lastUsedStep')];
    const [cHash, cUser, cUsed] = [col(challenges, 'tokenHash'), col(challenges, 'userId'), col(challenges, 'usedAt')];
    const aliased = (prefix: string, columns: ColumnMetadata[]) => columns.map((c) => `${prefix}.${q(c.databaseName)} AS ${q(`${prefix}_${c.databaseName}`)}`).join(', ');

    // One row at least (the counts), and one per factor: a user without any factor costs this statement alone.
    this.secondStepSql =
      `SELECT r.recovery_codes AS recovery_codes, r.passkeys AS passkeys, ${aliased('f', this.factorColumns)} FROM (SELECT ` +
      `(SELECT COUNT(*) FROM ${q(codes.tableName)} WHERE ${col(codes, 'userId')} = ? AND ${col(codes, 'usedAt')} IS NULL) AS recovery_codes, ` +
      `(SELECT COUNT(*) FROM ${q(passkeys.tableName)} WHERE ${col(passkeys, 'userId')} = ?) AS passkeys) r ` +
      `LEFT JOIN ${q(factors.tableName)} f ON f.${fUser} = ? ORDER BY f.${fCreated} ASC, f.${fId} ASC`;
    // The ticket, its holder and the holder's factors: what the second step reads, at once.
    this.ticketSql =
      `SELECT ${aliased('c', this.challengeColumns)}, ${aliased('u', this.user.columns)}, ${aliased('f', this.factorColumns)} ` +
      `FROM ${q(challenges.tableName)} c LEFT JOIN ${this.user.table} u ON u.${this.user.id} = c.${cUser} ` +
      `LEFT JOIN ${q(factors.tableName)} f ON f.${fUser} = c.${cUser} WHERE c.${cHash} = ? ORDER BY f.${fCreated} ASC, f.${fId} ASC`;
    this.addChallengeSql =
      `INSERT INTO ${q(challenges.tableName)} (${this.challengeColumns.map((c) => q(c.databaseName)).join(', ')}) ` +
      `VALUES (${this.challengeColumns.map(() => '?').join(', ')})`;
    this.useTimeStepSql = `UPDATE ${q(factors.tableName)} SET ${fLast} = ? WHERE ${fId} = ? AND (${fLast} IS NULL OR ${fLast} < ?)`;
    this.useChallengeSql = `UPDATE ${q(challenges.tableName)} SET ${cUsed} = ? WHERE ${cHash} = ? AND ${cUsed} IS NULL`;
    // MySQL and MariaDB: both rows in one statement, each on its condition, or neither.
    this.useBothSql =
      `UPDATE ${q(factors.tableName)} f, ${q(challenges.tableName)} c SET f.${fLast} = ?, c.${cUsed} = ? ` +
      `WHERE f.${fId} = ? AND (f.${fLast} IS NULL OR f.${fLast} < ?) AND c.${cHash} = ? AND c.${cUsed} IS NULL`;
  }

  async secondStepOf(manager: EntityManager, userId: string, withPasskeys: boolean): Promise<SecondStepFactors> {
    const rows = (await manager.query(this.secondStepSql, [userId, userId, userId])) as Record<string, unknown>[];
    const first = rows[0] ?? {};
    const factors = rows.filter((row) => row.f_id !== null && row.f_id !== undefined).map((row) => this.factor(row, 'f'));
    const passkeys = withPasskeys && Number(first.passkeys ?? 0) > 0 ? await passkeyRows.of(manager, userId) : [];
    return { factors, passkeys, recoveryCodes: Number(first.recovery_codes ?? 0) };
  }

  async signInTicket(manager: EntityManager, tokenHash: string): Promise<SignInTicket | null> {
    const rows = (await manager.query(this.ticketSql, [tokenHash])) as Record<string, unknown>[];
    const first = rows[0];
    if (!first) return null;
    const challenge = toChallenge(this.hydrate(first, 'c', this.challengeColumns) as unknown as MfaChallengeRecord);
    const present = first[`u_${this.user.columns.find((column) => column.propertyName === 'id')!.databaseName}`];
    const record = present === null || present === undefined ? null : this.user.hydrate(unprefixed(first, 'u'));
    const holder = record && record.status !== 'deleted' ? toDomain(record) : null;
    const factors = rows.filter((row) => row.f_id !== null && row.f_id !== undefined).map((row) => this.factor(row, 'f'));
    return { challenge, holder, factors };
  }

  async addChallenge(manager: EntityManager, challenge: MfaChallenge): Promise<void> {
    const values: Record<string, unknown> = { ...challenge, passwordMatched: challenge.passwordMatched ? 1 : 0 };
    const driver = this.dataSource.driver;
    await this.run(manager, this.addChallengeSql, this.challengeColumns.map((c) => driver.preparePersistentValue(values[c.propertyName] ?? null, c)));
  }

  async useTimeStep(manager: EntityManager, factorId: string, step: number): Promise<boolean> {
    return (await this.run(manager, this.useTimeStepSql, [step, factorId, step])) > 0;
  }

  async useChallenge(manager: EntityManager, tokenHash: string, at: Date): Promise<boolean> {
    return (await this.run(manager, this.useChallengeSql, [this.datetime(at), tokenHash])) > 0;
  }

  /**
   * Both in one statement where the database can (neither is used unless both are free); otherwise, or when that
   * statement changed nothing, one after the other to tell which was taken: the step first, as a code is checked
   * before its ticket is used up.
   */
  async useTimeStepAndTicket(manager: EntityManager, factorId: string, step: number, tokenHash: string, at: Date): Promise<StepAndTicketUse> {
    if (this.mysql && (await this.run(manager, this.useBothSql, [step, this.datetime(at), factorId, step, tokenHash])) > 0) return 'used';
    if (!(await this.useTimeStep(manager, factorId, step))) return 'step_used';
    return (await this.useChallenge(manager, tokenHash, at)) ? 'used' : 'ticket_used';
  }

  private factor(row: Record<string, unknown>, prefix: string): MfaFactor {
    return toFactor(this.hydrate(row, prefix, this.factorColumns) as unknown as MfaFactorRecord);
  }

  private hydrate(row: Record<string, unknown>, prefix: string, columns: ColumnMetadata[]): Record<string, unknown> {
    const record: Record<string, unknown> = {};
    for (const c of columns) record[c.propertyName] = this.dataSource.driver.prepareHydratedValue(row[`${prefix}_${c.databaseName}`], c);
    return record;
  }

  private datetime(value: Date): unknown {
    const column = this.challengeColumns.find((c) => c.propertyName === 'usedAt')!;
    return this.dataSource.driver.preparePersistentValue(value, column);
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
