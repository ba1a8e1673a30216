import { ConnectionTurns, TurnWaitTimedOutError } from '../../../../src/infrastructure/persistence/typeorm/connection-turns';

/** A run that ends when the test says: its start and end are recorded in `log`. */
function gate(log: string[], name: string): { run: () => Promise<string>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    run: async () => {
      log.push(`start ${name}`);
      await opened;
      log.push(`end ${name}`);
      return name;
    },
    open: () => open(),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ConnectionTurns', () => {
  it('runs one run of a turn at a time, in the order they asked, and runs of other turns alongside', async () => {
    const turns = new ConnectionTurns({ waitMs: 0 });
    const log: string[] = [];
    const [a, b, c, other] = ['a', 'b', 'c', 'other'].map((name) => gate(log, name));
    const runs = [turns.inTurn('roles', a!.run), turns.inTurn('roles', b!.run), turns.inTurn('roles', c!.run), turns.inTurn('users', other!.run)];
    await settle();
    expect(log).toEqual(['start a', 'start other']);
    expect(turns.waiting('roles')).toBe(2);
    c!.open();
    b!.open();
    await settle();
    expect(log).toEqual(['start a', 'start other']);
    a!.open();
    other!.open();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'other']);
    expect(log.filter((line) => !line.includes('other'))).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(turns.waiting('roles')).toBe(0);
  });

  it('admits a turn\'s number of slots at once, the rest in the order they asked', async () => {
    const turns = new ConnectionTurns({ waitMs: 0, slots: { search: 2 } });
    const log: string[] = [];
    const gates = ['a', 'b', 'c', 'd'].map((name) => gate(log, name));
    const runs = gates.map(({ run }) => turns.inTurn('search', run));
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    gates[1]!.open();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'end b', 'start c']);
    for (const { open } of gates) open();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
    expect(turns.waiting('search')).toBe(0);
    expect(() => new ConnectionTurns({ waitMs: 0, slots: { search: 0 } })).toThrow(RangeError);
  });

  it('serves the parties\' lines in turn, one run each, each party\'s runs in the order they asked', async () => {
    const turns = new ConnectionTurns({ waitMs: 0, slots: { search: 1 } });
    const log: string[] = [];
    const script = ['s1', 's2', 's3', 's4'].map((name) => gate(log, name));
    const [admin, other] = [gate(log, 'admin'), gate(log, 'other')];
    const runs = [
      ...script.map(({ run }) => turns.inTurn('search', run, 'client:script')),
      turns.inTurn('search', admin.run, 'user:admin'),
      turns.inTurn('search', other.run, 'user:other'),
    ];
    await settle();
    expect(log).toEqual(['start s1']);
    expect(turns.waiting('search')).toBe(5);
    for (const { open } of [...script, admin, other]) open();
    expect(await Promise.all(runs)).toEqual(['s1', 's2', 's3', 's4', 'admin', 'other']);
    // The script's first run held the slot; then one run of each party that waits, in the order parties came.
    expect(log.filter((line) => line.startsWith('start'))).toEqual(['start s1', 'start s2', 'start admin', 'start other', 'start s3', 'start s4']);
    expect(turns.waiting('search')).toBe(0);
  });

  it('fails a waiting run of one party past waitMs and keeps the other parties\' places', async () => {
    jest.useFakeTimers();
    try {
      const turns = new ConnectionTurns({ waitMs: 1_000 });
      const log: string[] = [];
      const [first, b] = ['first', 'b'].map((name) => gate(log, name));
      const running = turns.inTurn('search', first!.run, 'a');
      const timedOut = turns.inTurn('search', async () => log.push('a2 ran'), 'a').then(() => null, (error: unknown) => error);
      await jest.advanceTimersByTimeAsync(600);
      const later = turns.inTurn('search', b!.run, 'b');
      await jest.advanceTimersByTimeAsync(500);
      expect(await timedOut).toBeInstanceOf(TurnWaitTimedOutError);
      expect(turns.waiting('search')).toBe(1);
      first!.open();
      b!.open();
      await expect(running).resolves.toBe('first');
      await expect(later).resolves.toBe('b');
      expect(log).toEqual(['start first', 'end first', 'start b', 'end b']);
    } finally {
      jest.useRealTimers();
    }
  });

  it('passes the turn on after a run that failed', async () => {
    const turns = new ConnectionTurns({ waitMs: 0 });
    const failed = turns.inTurn('roles', async () => {
      throw new Error('rolled back');
    });
    const next = turns.inTurn('roles', async () => 'next');
    await expect(failed).rejects.toThrow('rolled back');
    await expect(next).resolves.toBe('next');
  });

  it('fails a run that waited waitMs without its turn, never runs it, and serves the one after it in its turn', async () => {
    jest.useFakeTimers();
    try {
      const turns = new ConnectionTurns({ waitMs: 1_000 });
      const log: string[] = [];
      const [first, late] = ['first', 'late'].map((name) => gate(log, name));
      const running = turns.inTurn('roles', first!.run);
      const timedOut = turns.inTurn('roles', async () => log.push('timed-out ran'));
      const outcome = timedOut.then(() => null, (error: unknown) => error);
      await jest.advanceTimersByTimeAsync(600);
      const after = turns.inTurn('roles', late!.run);
      await jest.advanceTimersByTimeAsync(500);
      const error = await outcome;
      expect(error).toBeInstanceOf(TurnWaitTimedOutError);
      expect((error as TurnWaitTimedOutError).code).toBe('TURN_WAIT_TIMEOUT');
      expect(turns.waiting('roles')).toBe(1);
      first!.open();
      late!.open();
      await expect(running).resolves.toBe('first');
      await expect(after).resolves.toBe('late');
      expect(log).toEqual(['start first', 'end first', 'start late', 'end late']);
    } finally {
      jest.useRealTimers();
    }
  });
});
