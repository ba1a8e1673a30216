import {
  compareVersions,
  parseServerVersion,
  unsupportedServerProblem,
} from '../../../../src/infrastructure/persistence/typeorm/server-version';

describe('parseServerVersion', () => {
  it('reads what MySQL and MariaDB answer to SELECT VERSION()', () => {
    expect(parseServerVersion('8.0.31')).toEqual({ product: 'MySQL', version: [8, 0, 31], text: '8.0.31' });
    expect(parseServerVersion('8.0.15-log')).toMatchObject({ product: 'MySQL', version: [8, 0, 15] });
    expect(parseServerVersion('9.1.0')).toMatchObject({ product: 'MySQL', version: [9, 1, 0] });
    expect(parseServerVersion('10.11.19-MariaDB-0+deb12u1')).toMatchObject({ product: 'MariaDB', version: [10, 11, 19] });
    expect(parseServerVersion('11.4.2-MariaDB-ubu2404')).toMatchObject({ product: 'MariaDB', version: [11, 4, 2] });
    // The prefix MariaDB gives old clients in its handshake.
    expect(parseServerVersion('5.5.5-10.5.8-MariaDB')).toMatchObject({ product: 'MariaDB', version: [10, 5, 8] });
    expect(parseServerVersion('not a version')).toBeNull();
  });
});

describe('compareVersions', () => {
  it('compares numerically, part by part (10.11 is newer than 10.6, 8.0.19 than 8.0.9)', () => {
    expect(compareVersions([10, 11, 0], [10, 6, 0])).toBeGreaterThan(0);
    expect(compareVersions([8, 0, 9], [8, 0, 19])).toBeLessThan(0);
    expect(compareVersions([8, 0, 19], [8, 0, 19])).toBe(0);
    expect(compareVersions([8, 0, 15], [8, 0, 19])).toBeLessThan(0);
    expect(compareVersions([9, 0, 0], [8, 0, 19])).toBeGreaterThan(0);
    expect(compareVersions([8, 0], [8, 0, 0])).toBe(0);
  });
});

describe('unsupportedServerProblem', () => {
  it('refuses a MySQL older than 8.0.19, naming the version found and the minimum', () => {
    const problem = unsupportedServerProblem('mysql', '8.0.15');
    expect(problem).toContain('MySQL 8.0.15');
    expect(problem).toContain('needs MySQL 8.0.19 or newer');
    expect(problem).toMatch(/^DATABASE_URL: /);
    expect(unsupportedServerProblem('mysql', '8.0.18-log')).toContain('MySQL 8.0.18-log');
    expect(unsupportedServerProblem('mysql', '5.7.44')).toContain('needs MySQL 8.0.19 or newer');
  });

  it('accepts MySQL 8.0.19 and newer', () => {
    for (const version of ['8.0.19', '8.0.31', '8.4.3', '9.1.0']) expect(unsupportedServerProblem('mysql', version)).toBeNull();
    // mariadb:// on a MySQL: MariaDB's dialect (VALUES()) still runs there.
    expect(unsupportedServerProblem('mariadb', '8.0.31')).toBeNull();
  });

  it('refuses a MariaDB older than 10.6 and accepts 10.6 and newer', () => {
    const problem = unsupportedServerProblem('mariadb', '10.5.27-MariaDB-log');
    expect(problem).toContain('10.5.27-MariaDB-log');
    expect(problem).toContain('needs MariaDB 10.6 or newer');
    expect(unsupportedServerProblem('mariadb', '10.4.34-MariaDB')).toContain('needs MariaDB 10.6 or newer');
    for (const version of ['10.6.0-MariaDB', '10.11.19-MariaDB-0+deb12u1', '11.4.2-MariaDB', '5.5.5-10.11.6-MariaDB']) {
      expect(unsupportedServerProblem('mariadb', version)).toBeNull();
    }
  });

  it('refuses mysql:// on a MariaDB, whatever its version: it does not parse the row alias MySQL is written with', () => {
    expect(unsupportedServerProblem('mysql', '10.11.19-MariaDB-0+deb12u1')).toContain('use mariadb://');
  });

  it('leaves a version it cannot read alone', () => {
    expect(unsupportedServerProblem('mysql', '')).toBeNull();
  });
});
