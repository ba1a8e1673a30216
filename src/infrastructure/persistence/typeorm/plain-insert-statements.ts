import type { DataSource, EntityManager, EntitySchema, ObjectLiteral } from 'typeorm';

type PlainInsert = (manager: EntityManager, records: readonly ObjectLiteral[], tail: string) => Promise<void>;

/**
 * Inserts rows of an entity with an INSERT written once per entity (see user-read-statements.ts for
 * why): every column, each value prepared by the driver as `repository.insert()` would (dates to the
 * database's form, booleans, JSON, …), in one multi-row statement.
 */
export class PlainInsertStatements {
  private readonly dataSource: DataSource;
  private readonly bySchema = new Map<EntitySchema<unknown>, PlainInsert>();

  constructor({ dataSource }: { dataSource: DataSource }) {
    this.dataSource = dataSource;
  }

  /** `tail`: a dialect's conflict clause (ON DUPLICATE KEY UPDATE …, ON CONFLICT … DO …), written by the caller. */
  insert<T extends ObjectLiteral>(manager: EntityManager, schema: EntitySchema<T>, records: readonly T[], tail = ''): Promise<void> {
    const key = schema as EntitySchema<unknown>;
    // Written on first use: the repositories are made before their DataSource is initialised.
    let insert = this.bySchema.get(key);
    if (!insert) {
      insert = buildInsert(this.dataSource, key);
      this.bySchema.set(key, insert);
    }
    return insert(manager, records, tail);
  }
}

function buildInsert(dataSource: DataSource, schema: EntitySchema<unknown>): PlainInsert {
  const metadata = dataSource.getMetadata(schema);
  const { driver } = dataSource;
  const columns = metadata.columns;
  const head = `INSERT INTO ${driver.escape(metadata.tableName)} (${columns.map((c) => driver.escape(c.databaseName)).join(', ')}) VALUES `;
  const row = `(${columns.map(() => '?').join(', ')})`;
  return async (manager, records, tail) => {
    if (records.length === 0) return;
    const parameters: unknown[] = [];
    for (const record of records) {
      for (const c of columns) parameters.push(driver.preparePersistentValue((record as Record<string, unknown>)[c.propertyName], c));
    }
    await manager.query(head + new Array<string>(records.length).fill(row).join(', ') + tail, parameters);
  };
}
