import { retryWhilePortTaken, START_ATTEMPT_LABEL, startContainer } from '../../support/container-start';

/** A definition whose start fails with the errors given, in turn, then starts; it records the label it was given. */
function engine(failures: Error[]) {
  const labels: string[] = [];
  const removed: string[] = [];
  let defined = 0;
  const define = () => {
    defined += 1;
    let label = '';
    return {
      withLabels(given: Record<string, string>) {
        label = given[START_ATTEMPT_LABEL]!;
        labels.push(label);
        return {
          start: async () => {
            const failure = failures.shift();
            if (failure) throw failure;
            return `started ${label}`;
          },
        };
      },
    };
  };
  const removeLeftovers = async (id: string) => {
    removed.push(id);
  };
  return { define, removeLeftovers, labels, removed, defined: () => defined };
}

const portTaken = () =>
  new Error('(HTTP code 500) server error - cannot listen on the TCP port: listen tcp4 :44535: bind: address already in use');

describe('startContainer', () => {
  it('starts a fresh definition when the host port was taken, after removing what the failed attempt left', async () => {
    const e = engine([portTaken()]);
    const started = await startContainer(e.define, { removeLeftovers: e.removeLeftovers });
    expect(e.defined()).toBe(2);
    expect(new Set(e.labels).size).toBe(2);
    expect(e.removed).toEqual([e.labels[0]]);
    expect(started).toBe(`started ${e.labels[1]}`);
  });

  it('gives up after the attempts allowed, with the engine’s error', async () => {
    const e = engine([portTaken(), portTaken(), portTaken()]);
    await expect(startContainer(e.define, { removeLeftovers: e.removeLeftovers })).rejects.toThrow(/address already in use/);
    expect(e.defined()).toBe(3);
    expect(e.removed).toEqual(e.labels.slice(0, 2));
  });

  it('does not try again on any other failure', async () => {
    const e = engine([new Error('Container did not start: wait strategy timed out')]);
    await expect(startContainer(e.define, { removeLeftovers: e.removeLeftovers })).rejects.toThrow(/timed out/);
    expect([e.defined(), e.removed.length]).toEqual([1, 0]);
  });
});

describe('retryWhilePortTaken', () => {
  it('starts again when the host port was taken, and gives up after the attempts allowed', async () => {
    const failures = [portTaken()];
    let calls = 0;
    const start = async () => {
      calls += 1;
      const failure = failures.shift();
      if (failure) throw failure;
      return calls;
    };
    await expect(retryWhilePortTaken(start)).resolves.toBe(2);

    calls = 0;
    failures.push(portTaken(), portTaken(), portTaken());
    await expect(retryWhilePortTaken(start)).rejects.toThrow(/address already in use/);
    expect(calls).toBe(3);
  });

  it('does not try again on any other failure', async () => {
    let calls = 0;
    const start = async () => {
      calls += 1;
      throw new Error('sign-in failed: 401');
    };
    await expect(retryWhilePortTaken(start)).rejects.toThrow(/401/);
    expect(calls).toBe(1);
  });
});
