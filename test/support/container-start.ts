/**
 * Starting a container with a published port, again when the engine could not bind the host port it chose.
 *
 * Podman chooses a free host port when it creates a container (it binds port 0 and lets go) and binds it when the
 * container starts. In between, any process may take that port: beside the rest of the suite, which opens ports
 * all the time, CI saw `cannot listen on the TCP port: listen tcp4 :44535: bind: address already in use` fail a
 * whole test file. Docker chooses and binds in one step, so there it does not happen.
 *
 * A definition is not started twice (KafkaContainer, for one, rewrites its own settings as it starts), so the
 * caller hands over a function that builds it afresh. The container a failed start left behind (created, never
 * running) is found by a label of its attempt and removed.
 */
import { randomUUID } from 'node:crypto';

export const START_ATTEMPT_LABEL = 'access-control.test.start-attempt';
const PORT_TAKEN = /address already in use/i;

/** What testcontainers' definitions offer that this needs: GenericContainer and every module's container. */
export interface ContainerDefinition<T> {
  withLabels(labels: Record<string, string>): { start(): Promise<T> };
}

export interface StartOptions {
  attempts?: number;
  /** Removes what the attempt labelled `id` left; by default through the engine's API. */
  removeLeftovers?: (id: string) => Promise<void>;
}

export async function startContainer<T>(define: () => ContainerDefinition<T>, options: StartOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 3;
  const removeLeftovers = options.removeLeftovers ?? removeLabelled;
  for (let attempt = 1; ; attempt += 1) {
    const id = randomUUID();
    try {
      return await define().withLabels({ [START_ATTEMPT_LABEL]: id }).start();
    } catch (error) {
      if (attempt >= attempts || !portTaken(error)) throw error;
      await removeLeftovers(id);
    }
  }
}

/** Whether a start failed because the engine could not bind the host port it had chosen. */
export function portTaken(error: unknown): boolean {
  return PORT_TAKEN.test(error instanceof Error ? error.message : String(error));
}

/**
 * For a start that is not ours to label (the testcontainers example, which other teams copy as written): the whole
 * start again when a host port was taken, up to `attempts` times. What the failed attempt had started is not known
 * here, so it keeps running until the engine's containers are cleaned up; the retry is for a rare clash only.
 */
export async function retryWhilePortTaken<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !portTaken(error)) throw error;
    }
  }
}

async function removeLabelled(id: string): Promise<void> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  const { dockerode } = (await getContainerRuntimeClient()).container;
  const left = await dockerode.listContainers({ all: true, filters: { label: [`${START_ATTEMPT_LABEL}=${id}`] } });
  await Promise.all(left.map((info) => dockerode.getContainer(info.Id).remove({ force: true, v: true })));
}
