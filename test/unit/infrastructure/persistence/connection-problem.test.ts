import { connectionProblem } from '../../../../src/infrastructure/persistence/typeorm/connection-problem';

/** An error as mysql2 rejects a connection with (its message quotes the names describeError masks). */
const driverError = (code: string, sqlMessage = '') => Object.assign(new Error(sqlMessage), { code, sqlMessage, sql: undefined });
const at = (url: string) => ({ kind: 'mariadb' as const, url });

describe('connectionProblem: what a refused connection says about DATABASE_URL', () => {
  const url = at('mariadb://ac%40ops:s3cret-pw@db.internal:3307/access_control');

  it.each([
    ['ER_ACCESS_DENIED_ERROR', "Access denied for user 'ac@ops'@'10.0.0.7' (using password: YES)", 'DATABASE_URL: access denied for user ac@ops at db.internal:3307 (check the user and password)'],
    ['ER_ACCESS_DENIED_NO_PASSWORD_ERROR', "Access denied for user 'ac@ops'@'10.0.0.7'", 'DATABASE_URL: access denied for user ac@ops at db.internal:3307 (check the user and password)'],
    ['ER_DBACCESS_DENIED_ERROR', "Access denied for user 'ac@ops'@'%' to database 'access_control'", 'DATABASE_URL: user ac@ops may not use database access_control (grant it, or check the name)'],
    ['ER_BAD_DB_ERROR', "Unknown database 'access_control'", 'DATABASE_URL: unknown database access_control at db.internal:3307 (create it, or check the name)'],
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal', 'DATABASE_URL: host db.internal not found (check the host name)'],
    ['ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.7:3307', 'DATABASE_URL: nothing listens at db.internal:3307 (yet?)'],
  ])('%s names the part to check from the URL, never its password', (code, message, expected) => {
    const problem = connectionProblem(driverError(code, message), url);
    expect(problem).toBe(expected);
    expect(problem).not.toContain('s3cret');
  });

  it('says nothing more than the driver for anything else, or on SQLite', () => {
    expect(connectionProblem(driverError('PROTOCOL_CONNECTION_LOST'), url)).toBeNull();
    expect(connectionProblem(new Error('boom'), url)).toBeNull();
    expect(connectionProblem(driverError('ER_BAD_DB_ERROR'), { kind: 'sqlite', path: '/data/x.sqlite' })).toBeNull();
  });

  it('takes the default port and a missing user or database as such', () => {
    expect(connectionProblem(driverError('ER_ACCESS_DENIED_ERROR'), at('mysql://db/'))).toBe(
      'DATABASE_URL: access denied for user (none) at db:3306 (check the user and password)',
    );
  });
});
