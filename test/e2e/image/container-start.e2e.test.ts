/**
 * startContainer against the engine: a host port taken between Podman's choice and the container's start (here
 * forced, by asking the first attempt for a port this test holds) costs one more attempt and leaves nothing behind.
 */
import { createServer, type Server } from 'node:net';
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from 'testcontainers';
import { START_ATTEMPT_LABEL, startContainer } from '../../support/container-start';
import { requireContainerEngine } from '../../support/containers';

jest.setTimeout(180_000);

let holder: Server | undefined;
let started: StartedTestContainer | undefined;

afterAll(async () => {
  await started?.stop().catch(() => undefined);
  await new Promise((resolve) => (holder ? holder.close(resolve) : resolve(undefined)));
});

it('starts a container again when its host port was taken, and removes the one that could not start', async () => {
  await requireContainerEngine();
  holder = createServer();
  const taken = await new Promise<number>((resolve, reject) => {
    holder!.once('error', reject).listen(0, '0.0.0.0', () => resolve((holder!.address() as { port: number }).port));
  });

  const labels: string[] = [];
  started = await startContainer(() => {
    const first = labels.length === 0;
    const container = new GenericContainer('axllent/mailpit:v1.27')
      .withExposedPorts(first ? { container: 8025, host: taken } : 8025, 1025)
      .withWaitStrategy(Wait.forHttp('/readyz', 8025).forStatusCode(200));
    return {
      withLabels(given: Record<string, string>) {
        labels.push(given[START_ATTEMPT_LABEL]!);
        return container.withLabels(given);
      },
    };
  });

  expect(labels).toHaveLength(2);
  expect(started.getMappedPort(8025)).not.toBe(taken);
  expect((await fetch(`http://${started.getHost()}:${started.getMappedPort(8025)}/readyz`)).status).toBe(200);
  const { dockerode } = (await getContainerRuntimeClient()).container;
  const left = await dockerode.listContainers({ all: true, filters: { label: [`${START_ATTEMPT_LABEL}=${labels[0]}`] } });
  expect(left).toEqual([]);
});
