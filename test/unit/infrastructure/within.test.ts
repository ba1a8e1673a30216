import { TimedOutError, within } from '../../../src/infrastructure/system/within';

describe('within', () => {
  it('answers what the work answers, or its failure, when it comes in time', async () => {
    await expect(within(Promise.resolve(7), 50, 'work')).resolves.toBe(7);
    await expect(within(Promise.reject(new Error('refused')), 50, 'work')).rejects.toThrow('refused');
  });

  it('gives up with a TimedOutError naming the work once the time is past, and a late failure stays handled', async () => {
    let fail: (error: Error) => void = () => undefined;
    const hung = new Promise<number>((_, reject) => {
      fail = reject;
    });
    const started = Date.now();
    await expect(within(hung, 30, 'database probe')).rejects.toEqual(new TimedOutError('database probe', 30));
    expect(Date.now() - started).toBeLessThan(1_000);
    fail(new Error('late'));
    await new Promise((resolve) => setImmediate(resolve));
  });
});
