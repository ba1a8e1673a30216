import type { DataSource, EntityManager, EntitySchema } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { AuditEntry } from '../../../domain/audit/audit-entry';
import { insertAuditEntries } from './audit/typeorm-audit-trail';
import { BatchedInsert } from './batched-insert';
import {
  ClientAssertionJtiSchema,
  type ServiceAccountRecord,
  ServiceAccountSchema,
  type ServiceAccountSecretRecord,
  ServiceAccountSecretSchema,
} from './service-account-records';

/** An account by client id with its secrets, as one joined read: null account when no row has the id. */
export interface AccountWithSecrets {
  account: ServiceAccountRecord | null;
  secrets: ServiceAccountSecretRecord[];
}

/**
 * The statements of the token endpoint's hot path (every grant, introspection and revocation authenticates
 * its client), written once per DataSource and run with `manager.query`: TypeORM's `find()` and `insert()`
 * build and render their SQL at every call, which cost more CPU than the round trips (bench/oauth.ts), as
 * for the user reads (user-read-statements.ts). Values go through the driver's own hydration, so dates come
 * back as `find()` would give them on MySQL, MariaDB and both SQLite drivers.
 */
export interface ServiceAccountCredentialStatements {
  /** One statement whether or not the client exists: an unknown client costs what a known one does. */
  byClientId(manager: EntityManager, clientId: string): Promise<AccountWithSecrets>;
  /**
   * Inserts a client assertion's key, outside any transaction, with `entries` (a token grant's audit entries)
   * in the same commit; a duplicate key throws the driver's unique violation, and then nothing of the call was
   * written. Keys inserted at once share a statement, and those with entries a transaction whose entries share
   * theirs (batched-insert.ts), each caller told its own outcome.
   */
  insertJti(key: string, expiresAt: Date, entries?: readonly AuditEntry[]): Promise<void>;
}

/**
 * `serialize` runs a statement in the SQLite connection's turn (SqliteWriteQueue), at once on MySQL and
 * MariaDB.
 */
export function serviceAccountCredentialStatements(
  dataSource: DataSource,
  serialize: <T>(work: () => Promise<T>) => Promise<T>,
): ServiceAccountCredentialStatements {
  const { driver } = dataSource;
  const q = (name: string) => driver.escape(name);
  const shapeOf = (schema: EntitySchema<object>, alias: string) => {
    const metadata = dataSource.getMetadata(schema);
    const columns: ColumnMetadata[] = metadata.columns;
    return {
      table: q(metadata.tableName),
      columns,
      column: (property: string) => q(metadata.findColumnWithPropertyName(property)!.databaseName),
      selected: columns.map((c) => `${alias}.${q(c.databaseName)} AS ${q(`${alias}_${c.databaseName}`)}`).join(', '),
      hydrate(row: Record<string, unknown>): Record<string, unknown> {
        const record: Record<string, unknown> = {};
        for (const c of columns) record[c.propertyName] = driver.prepareHydratedValue(row[`${alias}_${c.databaseName}`], c);
        return record;
      },
    };
  };
  const accounts = shapeOf(ServiceAccountSchema as EntitySchema<object>, 'a');
  const secrets = shapeOf(ServiceAccountSecretSchema as EntitySchema<object>, 's');
  const secretId = secrets.column('id');
  // A row of the LEFT JOIN without a secret has NULL in every secret column.
  const secretIdKey = `s_${secrets.columns.find((c) => c.propertyName === 'id')!.databaseName}`;
  const byClientIdSql =
    `SELECT ${accounts.selected}, ${secrets.selected} FROM ${accounts.table} a ` +
    `LEFT JOIN ${secrets.table} s ON s.${secrets.column('serviceAccountId')} = a.${accounts.column('id')} ` +
    `WHERE a.${accounts.column('clientId')} = ? ORDER BY s.${secrets.column('createdAt')} ASC, s.${secretId} ASC`;

  const jtis = dataSource.getMetadata(ClientAssertionJtiSchema);
  const jtiColumn = (property: string) => jtis.findColumnWithPropertyName(property)!;
  const expiresAtColumn = jtiColumn('expiresAt');
  const insertJtis = `INSERT INTO ${q(jtis.tableName)} (${q(jtiColumn('id').databaseName)}, ${q(expiresAtColumn.databaseName)}) VALUES `;
  const jtiRows = (rows: readonly (readonly [string, unknown])[]) => [insertJtis + rows.map(() => '(?, ?)').join(', '), rows.flat()] as const;
  const jtiBatches = new BatchedInsert<[string, unknown]>((rows) => serialize(() => dataSource.query(...jtiRows(rows))));
  const grantBatches = new BatchedInsert<{ row: [string, unknown]; entries: readonly AuditEntry[] }>((grants) =>
    serialize(() =>
      dataSource.transaction(async (manager) => {
        await manager.query(...jtiRows(grants.map((g) => g.row)));
        await insertAuditEntries(manager, grants.flatMap((g) => g.entries));
      }),
    ),
  );

  return {
    async byClientId(manager, clientId) {
      const rows = (await manager.query(byClientIdSql, [clientId])) as Record<string, unknown>[];
      if (rows.length === 0) return { account: null, secrets: [] };
      return {
        account: accounts.hydrate(rows[0]!) as unknown as ServiceAccountRecord,
        secrets: rows.filter((row) => row[secretIdKey] != null).map((row) => secrets.hydrate(row) as unknown as ServiceAccountSecretRecord),
      };
    },
    insertJti(key, expiresAt, entries = []) {
      const row: [string, unknown] = [key, driver.preparePersistentValue(expiresAt, expiresAtColumn)];
      return entries.length === 0 ? jtiBatches.insert(row) : grantBatches.insert({ row, entries });
    },
  };
}
