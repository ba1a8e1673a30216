import { Kafka } from 'kafkajs';

/** What the fix below touches of kafkajs' per-connection request queue (kafkajs/src/network/requestQueue, 2.2.4). */
interface RequestQueueInternals {
  pending: unknown[];
  scheduleCheckPendingRequests(): void;
}

/**
 * kafkajs 2.2.4 (its last release) schedules a check of its pending requests after every check, even with none
 * pending and no throttle: `setTimeout(check, throttledUntil - Date.now())` with `throttledUntil` -1, a negative
 * delay Node runs after 1 ms. So each broker connection that has answered one request wakes the process about 900
 * times a second for ever: about 3.5 % of a core each, idle (measured with the queue alone), and on Node 24 a
 * `TimeoutNegativeWarning` on stderr (kafkajs issues #1704 and #1751; the fixes proposed there are not released).
 * With nothing pending there is nothing to check: a request queued later (throttled, or over the in-flight limit)
 * schedules its own check as it is queued, and an answer checks the queue at once. So the check is scheduled only
 * while something is pending. Applied once, when this module loads, before any client is made.
 */
function scheduleChecksOnlyWhilePending(): void {
  // kafkajs exports no handle on its request queue: the module path is the one of the version pinned above.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const queue = (require('kafkajs/src/network/requestQueue') as { prototype: RequestQueueInternals }).prototype;
  const schedule = queue.scheduleCheckPendingRequests;
  if ((schedule as { onlyWhilePending?: true }).onlyWhilePending) return;
  const onlyWhilePending = function (this: RequestQueueInternals): void {
    if (this.pending.length > 0) schedule.call(this);
  };
  queue.scheduleCheckPendingRequests = Object.assign(onlyWhilePending, { onlyWhilePending: true as const });
}

scheduleChecksOnlyWhilePending();

/** kafkajs' client, from here only, so that the fix above is in place before any connection is made. */
export { Kafka };
