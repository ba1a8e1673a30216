import type { QueryRunner, TableColumnOptions } from 'typeorm';

/**
 * Column helpers that keep one migration valid on MySQL, MariaDB and SQLite.
 * On MySQL/MariaDB text columns are pinned to utf8mb4 (MariaDB defaults to latin1), and
 * lookup keys use a binary collation: the application lower-cases them itself, and an
 * accent-insensitive collation would make "josé" and "jose" collide.
 */
export function columnsFor(queryRunner: QueryRunner) {
  const mysqlFamily = ['mysql', 'mariadb'].includes(queryRunner.connection.driver.options.type);
  const text = mysqlFamily ? { charset: 'utf8mb4', collation: 'utf8mb4_unicode_ci' } : {};
  const key = mysqlFamily ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {};
  const ascii = mysqlFamily ? { charset: 'ascii', collation: 'ascii_bin' } : {};

  return {
    mysqlFamily,
    id: (name = 'id', nullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: '36',
      isPrimary: name === 'id',
      isNullable: nullable,
      ...ascii,
    }),
    text: (name: string, length: number, nullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: nullable,
      ...text,
    }),
    key: (name: string, length: number, nullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: nullable,
      ...key,
    }),
    ascii: (name: string, length: number, nullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: nullable,
      ...ascii,
    }),
    datetime: (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: 'datetime',
      precision: 3,
      isNullable: nullable,
    }),
    longText: (name: string): TableColumnOptions => ({
      name,
      type: mysqlFamily ? 'mediumtext' : 'text',
      ...text,
    }),
    integer: (name: string, defaultValue: number): TableColumnOptions => ({
      name,
      type: 'int',
      default: defaultValue,
    }),
  };
}
