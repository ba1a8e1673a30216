import { againIfTableCreatedMeanwhile } from '../../../src/infrastructure/persistence/typeorm/migrate';

/** TypeORM's migrations table created by another process between TypeORM's check and its CREATE TABLE. */
const tableExists = (shape: 'driver' | 'plain') =>
  shape === 'driver'
    ? Object.assign(new Error("Table 'schema_migrations' already exists"), { driverError: { code: 'ER_TABLE_EXISTS_ERROR', errno: 1050 } })
    : Object.assign(new Error("Table 'schema_migrations' already exists"), { errno: 1050 });

describe('againIfTableCreatedMeanwhile', () => {
  it.each(['driver', 'plain'] as const)('asks once more when the first try found the table created meanwhile (%s error)', async (shape) => {
    let calls = 0;
    const answer = await againIfTableCreatedMeanwhile(async () => {
      calls += 1;
      if (calls === 1) throw tableExists(shape);
      return 'pending: none';
    });
    expect([answer, calls]).toEqual(['pending: none', 2]);
  });

  it('throws any other error at once, and the second refusal when the table is still "created meanwhile"', async () => {
    let calls = 0;
    const away = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    await expect(againIfTableCreatedMeanwhile(async () => ((calls += 1), Promise.reject(away)))).rejects.toBe(away);
    expect(calls).toBe(1);
    calls = 0;
    await expect(againIfTableCreatedMeanwhile(async () => ((calls += 1), Promise.reject(tableExists('driver'))))).rejects.toThrow('already exists');
    expect(calls).toBe(2);
  });
});
