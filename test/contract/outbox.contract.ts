import type { UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import type { DomainEvent } from '../../src/domain/shared/domain-event';
import { EmailAlreadyTakenError } from '../../src/domain/users/user.errors';
import { byId, type ContractOptions, contractIt, eventAbout, type MakeStores, newId, pendingUser, type StoredEvent } from './contract-kit';

/** An event as the outbox must keep it: every field as given, `data` as JSON carries it. */
function stored(event: DomainEvent): StoredEvent {
  return {
    id: event.id,
    type: event.type,
    aggregateId: event.aggregateId,
    occurredAt: event.occurredAt,
    data: JSON.parse(JSON.stringify(event.data)) as unknown,
  };
}

/**
 * What the Outbox of a TransactionScope promises (src/application/ports/outbox.port.ts): events
 * are saved with the change that caused them, so they are there after a commit and not after a
 * rollback. Read back through `storedEvents`, the probe each implementation supplies.
 */
export function describeOutboxContract(name: string, makeSubject: MakeStores<'unitOfWork' | 'storedEvents'>, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} honours the Outbox contract`, () => {
    let unitOfWork: UnitOfWork;
    let storedEvents: () => Promise<StoredEvent[]>;

    beforeEach(async () => {
      ({ unitOfWork, storedEvents } = await makeSubject());
    });

    const append = (events: readonly DomainEvent[]) => unitOfWork.run(({ outbox }) => outbox.append(events));

    test('holds the events appended in a committed run, each as given, with milliseconds, unicode and nested data', async () => {
      const aggregate = newId();
      const events = [
        eventAbout(aggregate, { user_id: aggregate, name: 'Zoë 🚀 Ünïcode', role: { _id: 'r', name: 'member' }, tags: ['a', 'b'], count: 3, none: null }),
        { ...eventAbout(aggregate, { user_id: aggregate }, 'UserJoined'), occurredAt: new Date('2026-02-01T00:00:00.007Z') },
      ];
      await append(events);
      expect(byId(await storedEvents())).toEqual(byId(events.map(stored)));
    });

    test('keeps data as JSON carries it: dates as ISO strings, undefined fields left out', async () => {
      const event = eventAbout(newId(), { at: new Date('2026-01-31T12:00:00.123Z'), missing: undefined, kept: 'yes' });
      await append([event]);
      expect((await storedEvents())[0]?.data).toEqual({ at: '2026-01-31T12:00:00.123Z', kept: 'yes' });
    });

    test('holds every event of several appends in one run and of several runs', async () => {
      const [a, b, c, d] = Array.from({ length: 4 }, () => eventAbout(newId()));
      await unitOfWork.run(async ({ outbox }) => {
        await outbox.append([a!]);
        await outbox.append([b!, c!]);
      });
      await append([d!]);
      expect(byId(await storedEvents())).toEqual(byId([a!, b!, c!, d!].map(stored)));
    });

    test('takes an empty list without failing, and stores nothing', async () => {
      await expect(append([])).resolves.toBeUndefined();
      expect(await storedEvents()).toEqual([]);
    });

    test('holds nothing of a run that throws after appending', async () => {
      const kept = eventAbout(newId());
      await append([kept]);
      const failure = new Error('fails after the append');
      await expect(
        unitOfWork.run(async ({ outbox }) => {
          await outbox.append([eventAbout(newId()), eventAbout(newId())]);
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await storedEvents()).toEqual([stored(kept)]);
    });

    test('holds nothing of a run whose later write fails (a taken e-mail)', async () => {
      await unitOfWork.run(({ users }) => users.add(pendingUser('clash@example.com')));
      const second = pendingUser('CLASH@example.com');
      await expect(
        unitOfWork.run(async ({ users, outbox }) => {
          await outbox.append(second.pullDomainEvents());
          await users.add(second);
        }),
      ).rejects.toBeInstanceOf(EmailAlreadyTakenError);
      expect(await storedEvents()).toEqual([]);
    });

    test('stores an event once: appending an id it holds already fails the run, which then holds nothing', async () => {
      const event = eventAbout(newId());
      await append([event]);
      const other = eventAbout(newId());
      await expect(
        unitOfWork.run(async ({ outbox }) => {
          await outbox.append([other]);
          await outbox.append([event]);
        }),
      ).rejects.toThrow();
      expect(await storedEvents()).toEqual([stored(event)]);
    });
  });
}
