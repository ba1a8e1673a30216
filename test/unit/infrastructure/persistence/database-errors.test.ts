import { QueryFailedError } from 'typeorm';
import { foreignKeyViolationOn, uniqueViolationOn } from '../../../../src/infrastructure/persistence/typeorm/database-errors';

/*
 * The errors below are as the drivers threw them when test/integration/persistence/foreign-key-errors.test.ts
 * provoked them on MariaDB 10.11, MySQL 8.0.31, better-sqlite3 and sql.js: the driver's own error (mysql2's
 * Error with code, errno, sqlState, sqlMessage and sql; better-sqlite3's SqliteError with a code; sql.js's plain
 * Error), and TypeORM's QueryFailedError around it, which copies the driver's fields onto itself.
 */

const FK = (side: 'child' | 'parent') =>
  side === 'child'
    ? 'Cannot add or update a child row: a foreign key constraint fails (`ac_test_mwvh8uvd_22e092`.`users`, CONSTRAINT `fk_users_role` FOREIGN KEY (`role_id`) REFERENCES `roles` (`id`))'
    : 'Cannot delete or update a parent row: a foreign key constraint fails (`ac_test_mwvh8uvd_22e092`.`users`, CONSTRAINT `fk_users_role` FOREIGN KEY (`role_id`) REFERENCES `roles` (`id`))';

function mysql2(code: string, errno: number, sqlMessage: string, sql = 'INSERT INTO `users` (…) VALUES (…)'): Error {
  return Object.assign(new Error(sqlMessage), { code, errno, sqlState: '23000', sqlMessage, sql });
}

function betterSqlite3(code: string, message: string): Error {
  const error = Object.assign(new Error(message), { code });
  error.name = 'SqliteError';
  return error;
}

const sqljs = (message: string) => new Error(message);

const wrapped = (driverError: Error) => new QueryFailedError('INSERT INTO `users` (…) VALUES (…)', [], driverError);

describe('foreignKeyViolationOn', () => {
  const missingParent = mysql2('ER_NO_REFERENCED_ROW_2', 1452, FK('child'));
  const stillReferenced = mysql2('ER_ROW_IS_REFERENCED_2', 1451, FK('parent'), 'DELETE FROM roles WHERE id = ?');

  it.each([
    ['MariaDB/MySQL 8 (1452), wrapped by TypeORM', wrapped(missingParent)],
    ['MariaDB/MySQL 8 (1452), as mysql2 threw it', missingParent],
  ])('names the constraint of a row naming a parent that is not there: %s', (_, error) => {
    expect(foreignKeyViolationOn(error)).toEqual({ kind: 'missing-parent', constraint: 'fk_users_role' });
  });

  it.each([
    ['MariaDB/MySQL 8 (1451), wrapped by TypeORM', wrapped(stillReferenced)],
    ['MariaDB/MySQL 8 (1451), as mysql2 threw it', stillReferenced],
  ])('names the constraint of a parent deleted while rows still name it: %s', (_, error) => {
    expect(foreignKeyViolationOn(error)).toEqual({ kind: 'still-referenced', constraint: 'fk_users_role' });
  });

  it('tells the sides apart by number alone, and by the older codes a server uses when it may not name the constraint', () => {
    expect(foreignKeyViolationOn({ errno: 1452 })).toEqual({ kind: 'missing-parent', constraint: '' });
    expect(foreignKeyViolationOn({ errno: 1451 })).toEqual({ kind: 'still-referenced', constraint: '' });
    const older = mysql2('ER_NO_REFERENCED_ROW', 1216, 'Cannot add or update a child row: a foreign key constraint fails');
    expect(foreignKeyViolationOn(wrapped(older))).toEqual({ kind: 'missing-parent', constraint: '' });
    const olderParent = mysql2('ER_ROW_IS_REFERENCED', 1217, 'Cannot delete or update a parent row: a foreign key constraint fails');
    expect(foreignKeyViolationOn(wrapped(olderParent))).toEqual({ kind: 'still-referenced', constraint: '' });
  });

  it.each([
    ['better-sqlite3, wrapped by TypeORM', wrapped(betterSqlite3('SQLITE_CONSTRAINT_FOREIGNKEY', 'FOREIGN KEY constraint failed'))],
    ['better-sqlite3, as it threw it', betterSqlite3('SQLITE_CONSTRAINT_FOREIGNKEY', 'FOREIGN KEY constraint failed')],
    ['sql.js, wrapped by TypeORM', wrapped(sqljs('FOREIGN KEY constraint failed'))],
    ['sql.js, as it threw it', sqljs('FOREIGN KEY constraint failed')],
  ])('recognises SQLite’s, which says neither the side nor the constraint: %s', (_, error) => {
    expect(foreignKeyViolationOn(error)).toEqual({ kind: 'unknown', constraint: '' });
  });

  it.each([
    ['a MariaDB unique violation', wrapped(mysql2('ER_DUP_ENTRY', 1062, "Duplicate entry 'a@example.com' for key 'uq_users_email_key'"))],
    ['a MySQL 8 unique violation', wrapped(mysql2('ER_DUP_ENTRY', 1062, "Duplicate entry 'a@example.com' for key 'users.uq_users_email_key'"))],
    ['a better-sqlite3 unique violation', wrapped(betterSqlite3('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: users.username_key'))],
    ['a sql.js unique violation', wrapped(sqljs('UNIQUE constraint failed: users.username_key'))],
    ['a deadlock', wrapped(Object.assign(mysql2('ER_LOCK_DEADLOCK', 1213, 'Deadlock found when trying to get lock; try restarting transaction'), { sqlState: '40001' }))],
    ['an error of no database', new Error('connect ECONNREFUSED 127.0.0.1:3306')],
    ['nothing', undefined],
    ['null', null],
  ])('is null for anything else: %s', (_, error) => {
    expect(foreignKeyViolationOn(error)).toBeNull();
  });

  it('is not taken for a unique violation by uniqueViolationOn', () => {
    for (const error of [wrapped(missingParent), wrapped(stillReferenced), wrapped(sqljs('FOREIGN KEY constraint failed'))]) {
      expect(uniqueViolationOn(error)).toBeNull();
    }
    expect(uniqueViolationOn(wrapped(mysql2('ER_DUP_ENTRY', 1062, "Duplicate entry 'a@example.com' for key 'users.uq_users_email_key'")))).toBe(
      'users.uq_users_email_key',
    );
  });
});
