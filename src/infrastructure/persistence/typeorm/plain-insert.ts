import type { DataSource, EntityManager, EntitySchema, ObjectLiteral } from 'typeorm';

/** Inserts rows of one entity with an INSERT written once per DataSource (see user-reads.ts for why). */
export type PlainInsert<T> = (manager: EntityManager, records: readonly T[], tail?: string) => Promise<void>;

const inserts = new WeakMap<DataSource, Map<EntitySchema<unknown>, PlainInsert<unknown>>>();

/**
 * Every column of the entity, each value prepared by the driver as `repository.insert()` would
 * (dates to the database's form, booleans, JSON, …), in one multi-row statement.
 */
export function plainInsertOf<T extends ObjectLiteral>(dataSource: DataSource, schema: EntitySchema<T>): PlainInsert<T> {
  let bySchema = inserts.get(dataSource);
  if (!bySchema) {
    bySchema = new Map();
    inserts.set(dataSource, bySchema);
  }
  let insert = bySchema.get(schema as EntitySchema<unknown>) as PlainInsert<T> | undefined;
  if (!insert) {
    insert = buildInsert<T>(dataSource, schema);
    bySchema.set(schema as EntitySchema<unknown>, insert as PlainInsert<unknown>);
  }
  return insert;
}

function buildInsert<T extends ObjectLiteral>(dataSource: DataSource, schema: EntitySchema<T>): PlainInsert<T> {
  const metadata = dataSource.getMetadata(schema);
  const { driver } = dataSource;
  const columns = metadata.columns;
  const head = `INSERT INTO ${driver.escape(metadata.tableName)} (${columns.map((c) => driver.escape(c.databaseName)).join(', ')}) VALUES `;
  const row = `(${columns.map(() => '?').join(', ')})`;
  // `tail`: a dialect's conflict clause (ON DUPLICATE KEY UPDATE …, ON CONFLICT … DO …), written by the caller.
  return async (manager, records, tail = '') => {
    if (records.length === 0) return;
    const parameters: unknown[] = [];
    for (const record of records) {
      for (const c of columns) parameters.push(driver.preparePersistentValue((record as Record<string, unknown>)[c.propertyName], c));
    }
    await manager.query(head + new Array<string>(records.length).fill(row).join(', ') + tail, parameters);
  };
}
