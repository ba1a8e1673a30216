import type { CloudEvent, EventPublisher } from '../messaging/cloud-event';
import type { ServiceMetrics } from './service-metrics';

/** An EventPublisher that times each publish and counts its events; everything else is the inner publisher's. */
export class InstrumentedEventPublisher implements EventPublisher {
  constructor(
    private readonly inner: EventPublisher,
    private readonly metrics: ServiceMetrics,
  ) {}

  async publish(events: readonly CloudEvent[]): Promise<void> {
    if (events.length === 0) return this.inner.publish(events);
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      await this.inner.publish(events);
    } catch (error) {
      this.metrics.observePublish(events, seconds(), false);
      throw error;
    }
    this.metrics.observePublish(events, seconds(), true);
  }

  /** Kafka's early connect, when the inner publisher has one. */
  async connect(): Promise<void> {
    const connect = (this.inner as { connect?: () => Promise<void> }).connect;
    if (connect) await connect.call(this.inner);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
