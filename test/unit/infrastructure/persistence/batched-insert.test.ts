import { BatchedInsert } from '../../../../src/infrastructure/persistence/typeorm/batched-insert';

/** A table with a unique key, whose statements are atomic and which the test lets finish by hand. */
function controlledTable() {
  const stored = new Set<string>();
  const statements: { rows: string[]; finish: () => void }[] = [];
  const insertMany = (rows: string[]) =>
    new Promise<void>((resolve, reject) => {
      statements.push({
        rows,
        finish: () => {
          const seen = new Set<string>();
          for (const row of rows) {
            if (stored.has(row) || seen.has(row)) return reject(new Error(`duplicate ${row}`));
            seen.add(row);
          }
          for (const row of rows) stored.add(row);
          resolve();
        },
      });
    });
  return { stored, statements, insertMany };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function finishAll(statements: { finish: () => void }[], from: number): Promise<number> {
  let next = from;
  for (let round = 0; round < 10; round++) {
    while (next < statements.length) statements[next++]!.finish();
    await tick();
  }
  return next;
}

describe('BatchedInsert', () => {
  it('inserts a lone row at once, in a statement of its own', async () => {
    const { statements, stored, insertMany } = controlledTable();
    const inserts = new BatchedInsert(insertMany);
    const a = inserts.insert('a');
    expect(statements.map((s) => s.rows)).toEqual([['a']]);
    statements[0]!.finish();
    await expect(a).resolves.toBeUndefined();
    expect([...stored]).toEqual(['a']);
  });

  it('inserts the rows asked for during a statement together, in the next one', async () => {
    const { statements, stored, insertMany } = controlledTable();
    const inserts = new BatchedInsert(insertMany);
    const all = ['a', 'b', 'c', 'd'].map((row) => inserts.insert(row));
    await finishAll(statements, 0);
    await expect(Promise.all(all)).resolves.toHaveLength(4);
    expect(statements.map((s) => s.rows)).toEqual([['a'], ['b', 'c', 'd']]);
    expect([...stored].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('tells each row of a failed batch its own outcome: the duplicate refused, the others written', async () => {
    const { statements, stored, insertMany } = controlledTable();
    stored.add('taken');
    const inserts = new BatchedInsert(insertMany);
    const first = inserts.insert('a');
    const settled = Promise.allSettled([inserts.insert('b'), inserts.insert('taken'), inserts.insert('c')]);
    await finishAll(statements, 0);
    await first;
    const outcomes = await settled;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('duplicate taken'));
    expect([...stored].sort()).toEqual(['a', 'b', 'c', 'taken']);
  });

  it('of two callers with one row in one batch, exactly one succeeds', async () => {
    const { statements, stored, insertMany } = controlledTable();
    const inserts = new BatchedInsert(insertMany);
    const first = inserts.insert('x');
    const settled = Promise.allSettled([inserts.insert('jti'), inserts.insert('jti')]);
    await finishAll(statements, 0);
    await first;
    const outcomes = await settled;
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect([...stored].sort()).toEqual(['jti', 'x']);
  });

  it('rejects a lone row with its statement\'s error and goes on with the next', async () => {
    const { statements, stored, insertMany } = controlledTable();
    stored.add('taken');
    const inserts = new BatchedInsert(insertMany);
    const refused = expect(inserts.insert('taken')).rejects.toThrow('duplicate taken');
    const next = inserts.insert('fresh');
    await finishAll(statements, 0);
    await refused;
    await expect(next).resolves.toBeUndefined();
    expect(statements.map((s) => s.rows)).toEqual([['taken'], ['fresh']]);
  });

  it('splits a long queue into statements of at most maxBatch rows', async () => {
    const { statements, insertMany } = controlledTable();
    const inserts = new BatchedInsert(insertMany, 2);
    const all = ['a', 'b', 'c', 'd', 'e'].map((row) => inserts.insert(row));
    await finishAll(statements, 0);
    await Promise.all(all);
    expect(statements.map((s) => s.rows)).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });
});
