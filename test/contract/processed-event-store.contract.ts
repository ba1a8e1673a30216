import type { ProcessedEventStore } from '../../src/application/ports/processed-event-store.port';
import type { UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import { type ContractOptions, contractIt, type MakeStores, newId } from './contract-kit';

const AT = new Date('2026-01-31T12:00:00.123Z');

/**
 * What ProcessedEventStore promises (src/application/ports/processed-event-store.port.ts): what a
 * consumer has handled, by event id, so a redelivered event changes nothing; recorded outside a
 * unit of work and inside one (where it commits or rolls back with the handling).
 */
export function describeProcessedEventStoreContract(
  name: string,
  makeSubject: MakeStores<'processedEvents' | 'unitOfWork'>,
  options: ContractOptions = {},
): void {
  const test = contractIt(options);

  describe(`${name} honours the ProcessedEventStore contract`, () => {
    let processedEvents: ProcessedEventStore;
    let unitOfWork: UnitOfWork;

    beforeEach(async () => {
      ({ processedEvents, unitOfWork } = await makeSubject());
    });

    test('has nothing it was not told', async () => {
      expect(await processedEvents.has('mailer', newId())).toBe(false);
    });

    test('has an event once recorded, for that consumer and that event only', async () => {
      const [eventId, otherEvent] = [newId(), newId()];
      await processedEvents.record('mailer', eventId, AT);
      expect(await processedEvents.has('mailer', eventId)).toBe(true);
      expect(await processedEvents.has('audit', eventId)).toBe(false);
      expect(await processedEvents.has('mailer', otherEvent)).toBe(false);
    });

    test('keeps the same event apart for two consumers', async () => {
      const eventId = newId();
      await processedEvents.record('mailer', eventId, AT);
      await processedEvents.record('audit', eventId, AT);
      expect([await processedEvents.has('mailer', eventId), await processedEvents.has('audit', eventId)]).toEqual([true, true]);
    });

    test('takes a redelivery: recording an event again does not fail', async () => {
      const eventId = newId();
      await processedEvents.record('mailer', eventId, AT);
      await expect(processedEvents.record('mailer', eventId, new Date(AT.getTime() + 1000))).resolves.toBeUndefined();
      expect(await processedEvents.has('mailer', eventId)).toBe(true);
    });

    test('takes concurrent records of one event without failing', async () => {
      const eventId = newId();
      await Promise.all(Array.from({ length: 4 }, () => processedEvents.record('mailer', eventId, AT)));
      expect(await processedEvents.has('mailer', eventId)).toBe(true);
    });

    describe('in a unit of work', () => {
      test('sees its own record before commit, and everyone sees it after', async () => {
        const eventId = newId();
        const seenInside = await unitOfWork.run(async (scope) => {
          await scope.processedEvents.record('mailer', eventId, AT);
          return scope.processedEvents.has('mailer', eventId);
        });
        expect(seenInside).toBe(true);
        expect(await processedEvents.has('mailer', eventId)).toBe(true);
      });

      test('forgets a record of a run that throws: the event is handled again on redelivery', async () => {
        const eventId = newId();
        await expect(
          unitOfWork.run(async (scope) => {
            await scope.processedEvents.record('mailer', eventId, AT);
            throw new Error('handling failed');
          }),
        ).rejects.toThrow('handling failed');
        expect(await processedEvents.has('mailer', eventId)).toBe(false);
      });

      test('sees what was recorded before the run', async () => {
        const eventId = newId();
        await processedEvents.record('mailer', eventId, AT);
        expect(await unitOfWork.run((scope) => scope.processedEvents.has('mailer', eventId))).toBe(true);
      });

      test('commits a record of an event recorded already, and two concurrent runs recording one event both commit', async () => {
        const [recorded, raced] = [newId(), newId()];
        await processedEvents.record('mailer', recorded, AT);
        await expect(unitOfWork.run((scope) => scope.processedEvents.record('mailer', recorded, AT))).resolves.toBeUndefined();
        const runs = [0, 1].map(() => unitOfWork.run((scope) => scope.processedEvents.record('mailer', raced, AT)));
        await expect(Promise.all(runs)).resolves.toEqual([undefined, undefined]);
        expect(await processedEvents.has('mailer', raced)).toBe(true);
      });
    });
  });
}
