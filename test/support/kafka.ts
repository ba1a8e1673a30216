/**
 * Gives the integration tests a real Kafka broker, in this order of preference:
 *
 *  1. `KAFKA_BROKERS` (comma-separated host:port) from the environment, used as is;
 *  2. a container runtime that answers within a few seconds → a KRaft KafkaContainer
 *     (`@testcontainers/kafka`, image `KAFKA_TESTCONTAINERS_IMAGE`, default Confluent 7.9 = Kafka 3.9);
 *  3. a local single-node KRaft broker run from Maven Central jars (see local-kafka.ts);
 *  4. otherwise an Error that says what is missing.
 *
 * `KAFKA_PROVIDER=testcontainers|local` forces one of 2 or 3 (no fallback); default `auto`.
 */
import { probeContainerRuntime } from './container-runtime';
import { startContainer } from './container-start';
import { LocalKafkaBroker, type LocalKafkaOptions } from './local-kafka';

export interface KafkaHandle {
  /** Bootstrap servers, comma-separated host:port ("127.0.0.1:port"). */
  brokers: string;
  source: 'env' | 'testcontainers' | 'local';
  /** Stops what we started (no-op for env). */
  stop(): Promise<void>;
}

export interface ProvideKafkaOptions {
  /** How long the container runtime may take to answer. Default: 3 000 ms. */
  containerRuntimeTimeoutMs?: number;
  /** Image for the testcontainers path. Default: `$KAFKA_TESTCONTAINERS_IMAGE` or confluentinc/cp-kafka:7.9.2. */
  containerImage?: string;
  /** Options for the local broker path. */
  local?: LocalKafkaOptions;
  /** Where progress notes go. Default: console.log. */
  log?: (message: string) => void;
}

type Provider = 'auto' | 'testcontainers' | 'local';

const DEFAULT_CONTAINER_IMAGE = 'confluentinc/cp-kafka:7.9.2'; // Confluent Platform 7.9 = Apache Kafka 3.9
const DEFAULT_RUNTIME_TIMEOUT_MS = 3_000;
/** Listener of KafkaContainer that is published to the host. */
const KAFKA_CONTAINER_PORT = 9093;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function providerFromEnv(): Provider {
  const value = (process.env.KAFKA_PROVIDER ?? 'auto').trim().toLowerCase();
  if (value === 'auto' || value === '') return 'auto';
  if (value === 'testcontainers' || value === 'local') return value;
  throw new Error(`KAFKA_PROVIDER must be auto, testcontainers or local (got "${process.env.KAFKA_PROVIDER}")`);
}

async function startBrokerContainer(image: string): Promise<KafkaHandle> {
  const { KafkaContainer } = await import('@testcontainers/kafka');
  // 9092 too: Podman (4.x) counts every port the image EXPOSEs as a binding to wait for.
  const container = await startContainer(() => new KafkaContainer(image).withKraft().withExposedPorts(KAFKA_CONTAINER_PORT, 9092));
  return {
    brokers: `${container.getHost()}:${container.getMappedPort(KAFKA_CONTAINER_PORT)}`,
    source: 'testcontainers',
    stop: async () => {
      await container.stop();
    },
  };
}

async function startLocal(options: LocalKafkaOptions | undefined): Promise<KafkaHandle> {
  const broker = await LocalKafkaBroker.start(options);
  return {
    brokers: broker.brokers,
    source: 'local',
    stop: () => broker.destroy(),
  };
}

export async function provideKafka(options: ProvideKafkaOptions = {}): Promise<KafkaHandle> {
  const log = options.log ?? ((message: string) => console.log(message));

  const fromEnv = process.env.KAFKA_BROKERS?.split(',').map((b) => b.trim()).filter(Boolean).join(',');
  if (fromEnv) {
    return { brokers: fromEnv, source: 'env', stop: async () => undefined };
  }

  const provider = providerFromEnv();
  const failures: string[] = ['KAFKA_BROKERS is not set'];

  if (provider !== 'local') {
    const timeoutMs = options.containerRuntimeTimeoutMs ?? DEFAULT_RUNTIME_TIMEOUT_MS;
    const runtimeProblem = await probeContainerRuntime(timeoutMs);
    if (runtimeProblem === undefined) {
      const image = options.containerImage ?? process.env.KAFKA_TESTCONTAINERS_IMAGE ?? DEFAULT_CONTAINER_IMAGE;
      const started = Date.now();
      try {
        const handle = await startBrokerContainer(image);
        log(`[kafka] testcontainers ${image} on ${handle.brokers} (${Date.now() - started} ms)`);
        return handle;
      } catch (error) {
        failures.push(`a container runtime answers but KafkaContainer(${image}) did not start: ${errorMessage(error)}`);
        if (provider === 'testcontainers') throw new Error(failures.join('; '));
        log(`[kafka] ${failures[failures.length - 1]}; falling back to a local broker`);
      }
    } else {
      failures.push(`no container runtime (${runtimeProblem})`);
      if (provider === 'testcontainers') throw new Error(`cannot provide Kafka: ${failures.join('; ')}`);
    }
  } else {
    failures.push('container runtime skipped (KAFKA_PROVIDER=local)');
  }

  const started = Date.now();
  try {
    const handle = await startLocal(options.local);
    log(`[kafka] local broker on ${handle.brokers} (${Date.now() - started} ms)`);
    return handle;
  } catch (error) {
    failures.push(`local broker: ${errorMessage(error)}`);
    throw new Error(`cannot provide Kafka: ${failures.join('; ')}`);
  }
}
