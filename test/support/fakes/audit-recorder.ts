import { AuditRecorder } from '../../../src/application/audit/audit-recorder';
import type { Clock } from '../../../src/application/ports/clock.port';
import type { IdGenerator } from '../../../src/application/ports/id-generator.port';
import type { Origin } from '../../../src/application/ports/request-origin.port';
import { HmacPseudonyms } from '../../../src/infrastructure/crypto/hmac-pseudonyms';
import { FixedClock } from './fixed-clock';
import { InMemoryAuditTrail } from './in-memory-audit-trail';
import { SequentialIdGenerator } from './sequential-id-generator';

/** Pseudonyms under a fixed key: a test compares a name's with `TEST_PSEUDONYMS.of(name)`. */
export const TEST_PSEUDONYMS = new HmacPseudonyms(Buffer.alloc(32, 7));

export const TEST_ORIGIN: Origin = Object.freeze({ requestId: 'req-1', address: '203.0.113.7', userAgent: 'jest' });

/**
 * An audit recorder for a use case under test: entries written on their own land in `auditTrail`
 * (pass the unit of work's `audit` to see every entry in one place). Ids from namespace 0xa0d17, so they
 * never collide with a test's own generator.
 */
export function auditRecorderFor(options: { clock?: Clock; auditTrail?: InMemoryAuditTrail; origin?: Origin; idGenerator?: IdGenerator } = {}) {
  const auditTrail = options.auditTrail ?? new InMemoryAuditTrail();
  const origin = options.origin ?? TEST_ORIGIN;
  const auditRecorder = new AuditRecorder({
    clock: options.clock ?? new FixedClock(),
    idGenerator: options.idGenerator ?? new SequentialIdGenerator(0xa0d17),
    requestOrigin: { current: () => origin },
    auditTrail,
    pseudonyms: TEST_PSEUDONYMS,
  });
  return { auditRecorder, auditTrail };
}
