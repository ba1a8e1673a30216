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
export function describeOutboxContract(
  name: string,
  makeSubject: MakeStores<'unitOfWork' | 'storedEvents' | 'storedSequences'>,
  options: ContractOptions = {},
): void {
  const test = contractIt(options);

  describe(`${name} honours the Outbox contract`, () => {
    let unitOfWork: UnitOfWork;
    let storedEvents: () => Promise<StoredEvent[]>;
    let storedSequences: () => Promise<Map<string, number>>;

    beforeEach(async () => {
      ({ unitOfWork, storedEvents, storedSequences } = await makeSubject());
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

    // The order the relay publishes an aggregate's events in (issue #22): decided where they are stored,
    // in commit order, never by the ids (UUIDv7 from the clock of whichever replica wrote them).
    test('numbers each aggregate\'s events 1, 2, 3… in the order appended, across appends and runs, each aggregate apart', async () => {
      const [x, y] = [newId(), newId()];
      const [x1, y1, x2, x3, y2] = [eventAbout(x), eventAbout(y), eventAbout(x), eventAbout(x), eventAbout(y)];
      await unitOfWork.run(async ({ outbox }) => {
        await outbox.append([x1!, y1!, x2!]);
        await outbox.append([x3!]);
      });
      await append([y2!]);
      const sequences = await storedSequences();
      expect([x1, x2, x3, y1, y2].map((e) => sequences.get(e!.id))).toEqual([1, 2, 3, 1, 2]);
    });

    test('leaves no gap: a run that rolls back uses up no number, the next committed event takes it', async () => {
      const aggregate = newId();
      const [first, lost, next] = [eventAbout(aggregate), eventAbout(aggregate), eventAbout(aggregate)];
      await append([first]);
      const failure = new Error('fails after the append');
      await expect(
        unitOfWork.run(async ({ outbox }) => {
          await outbox.append([lost]);
          throw failure;
        }),
      ).rejects.toBe(failure);
      await append([next]);
      const sequences = await storedSequences();
      expect([...sequences.entries()].sort((a, b) => a[1] - b[1])).toEqual([
        [first.id, 1],
        [next.id, 2],
      ]);
    });

    test('numbers two runs appending for one aggregate at once in the order they commit', async () => {
      const aggregate = newId();
      const [early, late] = [eventAbout(aggregate), eventAbout(aggregate)];
      let release: () => void = () => undefined;
      const latch = new Promise<void>((resolve) => (release = resolve));
      let appended: () => void = () => undefined;
      const earlyAppended = new Promise<void>((resolve) => (appended = resolve));
      const committed: string[] = [];
      // The first run appends, then stays open; the second appends for the same aggregate meanwhile.
      const first = unitOfWork
        .run(async ({ outbox }) => {
          await outbox.append([early]);
          appended();
          await latch;
        })
        .then(() => committed.push(early.id));
      await earlyAppended;
      const second = unitOfWork.run(({ outbox }) => outbox.append([late])).then(() => committed.push(late.id));
      release();
      await Promise.all([first, second]);
      const sequences = await storedSequences();
      expect(committed.map((id) => sequences.get(id))).toEqual([1, 2]);
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
