import { collectDefaultMetrics, Registry } from 'prom-client';

/** The Prometheus text format's content type, as prom-client writes it. */
export type MetricsRegistry = Registry;

/**
 * One registry per process (and per container in tests, so two apps in one test process do not
 * share counters), with Node's default process metrics (CPU, memory, event loop lag, GC, handles).
 */
export function createMetricsRegistry(processName: 'api' | 'mailer'): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ process: processName });
  collectDefaultMetrics({ register: registry });
  return registry;
}
