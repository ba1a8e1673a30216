import type { CloudEvent, InProcessEventBus } from './cloud-event';

type Handler = (event: CloudEvent) => Promise<void>;

/** Thrown by `publish` after `close()`: the relay then keeps the events for a later run. */
export class EventBusClosedError extends Error {
  constructor() {
    super('the in-process event bus is closed');
    this.name = 'EventBusClosedError';
  }
}

/**
 * The embedded default's bus (no Kafka). `publish` hands the events, in order, to every
 * subscriber in turn and awaits each; the first failure stops it and rejects `publish`, so the
 * relay leaves the batch unpublished and hands it again later (at least once: a subscriber that
 * already saw an event of a failed batch sees it again, and deduplicates by `id`).
 * A subscriber added or removed during a publish takes effect from the next publish.
 */
export function createInProcessEventBus(): InProcessEventBus {
  let handlers: readonly Handler[] = [];
  let closed = false;

  return {
    subscribe(handler: Handler): () => void {
      if (closed) throw new EventBusClosedError();
      handlers = [...handlers, handler];
      let subscribed = true;
      return () => {
        if (!subscribed) return;
        subscribed = false;
        const index = handlers.indexOf(handler);
        if (index >= 0) handlers = [...handlers.slice(0, index), ...handlers.slice(index + 1)];
      };
    },

    async publish(events: readonly CloudEvent[]): Promise<void> {
      if (closed) throw new EventBusClosedError();
      const current = handlers;
      for (const event of events) {
        for (const handler of current) {
          await handler(event);
        }
      }
    },

    async close(): Promise<void> {
      closed = true;
      handlers = [];
    },
  };
}
