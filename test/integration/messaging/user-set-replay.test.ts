/**
 * Issue #11: a consumer can keep a correct copy of the user set from the topic alone. A seeded,
 * randomized run of invitations, accepts, renames, role changes, deactivations, reactivations,
 * deletions, revocations and resends, and of custom roles created, renamed and deleted (a renamed
 * role's holders must show its new name), goes through the real service over HTTP (MariaDB/MySQL, the
 * outbox, the relay) to a real Kafka topic; a consumer then reads the topic from the beginning,
 * rebuilds the users from the events alone (test/support/user-set-replica.ts, written from
 * docs/events) and must find exactly what GET /v1/users lists.
 *
 * REPLAY_SEED picks another run (the seed is printed); REPLAY_BATCHES makes it longer.
 */
import { asValue } from 'awilix';
import type { CloudEvent } from '../../../src/infrastructure/messaging/cloud-event';
import { CapturingMailer } from '../../support/capturing-mailer';
import { ADMIN, startTestApp, type TestApp } from '../../support/test-app';
import { type ReplicaUser, UserSetReplica } from '../../support/user-set-replica';
import { createTopic, eventually, kafkaBrokers, type ReadMessage, secretsIn, startReader, topicMessageCount, uniqueTopic } from './kafka-test-kit';
import { ReplayScenario } from './user-set-scenario';

jest.setTimeout(300_000);

const SEED = Number(process.env.REPLAY_SEED ?? 1764);
const BATCHES = Number(process.env.REPLAY_BATCHES ?? 45);
const STATUSES = ['pending', 'active', 'deactivated'] as const;

describe('a consumer keeps a correct copy of the user set from the user-events topic alone', () => {
  let app: TestApp;
  let scenario: ReplayScenario;
  let messages: ReadMessage[];
  let replica: UserSetReplica;
  const mailer = new CapturingMailer();
  const topic = uniqueTopic('user-set-replay');

  beforeAll(async () => {
    await createTopic(topic, 3);
    app = await startTestApp({ KAFKA_BROKERS: kafkaBrokers().join(','), KAFKA_TOPIC: topic }, { mailer: asValue(mailer) });
    scenario = new ReplayScenario(app, mailer, SEED);
    await scenario.start();
    process.stdout.write(`user-set replay: seed ${SEED}, ${BATCHES} batches\n`);
    for (let batch = 0; batch < BATCHES; batch += 1) await scenario.runBatch();

    // Everything committed is published: the outbox is drained, then the topic is read to its end.
    const { dataSource } = app.api.container.cradle;
    const pending = await eventually(
      async () => Number(((await dataSource.query('SELECT COUNT(*) AS n FROM outbox_events WHERE published_at IS NULL')) as { n: unknown }[])[0]!.n),
      (n) => n === 0,
      60_000,
    );
    expect(pending).toBe(0);
    const total = await topicMessageCount(topic);
    const reader = await startReader(topic);
    try {
      messages = [...(await reader.waitFor(total, 60_000))];
    } finally {
      await reader.stop();
    }
    replica = new UserSetReplica();
    for (const message of orderedByOffset(messages)) replica.apply(message.value);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('ran a sequence with every kind of change', () => {
    const kinds = scenario.performed;
    for (const kind of ['invite', 'accept', 'rename', 'role', 'renameAndRole', 'deactivate', 'reactivate', 'delete', 'revoke', 'resend', 'noop', 'createRole', 'renameRole', 'deleteRole']) {
      expect([kind, (kinds.get(kind) ?? 0) > 0]).toEqual([kind, true]);
    }
    process.stdout.write(`user-set replay: ${messages.length} messages, ${JSON.stringify(Object.fromEntries(kinds))}\n`);
  });

  it('rebuilds exactly the users GET /v1/users lists, with their status (deleted and revoked users absent)', async () => {
    const truth = await listedUsers(app, scenario.token);
    expect(replica.problems).toEqual([]);
    expect(truth.size).toBeGreaterThan(5);
    expect(Object.fromEntries([...replica.users].sort())).toEqual(Object.fromEntries([...truth].sort()));
    // And the users the run removed are gone on both sides.
    for (const id of scenario.removed) expect([id, replica.users.has(id), truth.has(id)]).toEqual([id, false, false]);
  });

  it('keys each event by its user, keeps a user on one partition, in the order its changes happened', () => {
    const perUser = new Map<string, { partition: number; type: string; time: string }[]>();
    const seen = new Set<string>();
    for (const message of orderedByOffset(messages)) {
      const event = JSON.parse(message.value) as CloudEvent<{ user_id?: string }>;
      if (!event.type.startsWith('User')) continue; // other aggregates share the topic; not this test's
      expect([event.type, message.key, event.data.user_id]).toEqual([event.type, event.subject, event.subject]);
      if (seen.has(event.id)) continue; // at least once: a duplicate is skipped by id
      seen.add(event.id);
      const list = perUser.get(event.subject) ?? [];
      list.push({ partition: message.partition, type: event.type, time: event.time });
      perUser.set(event.subject, list);
    }
    expect([...perUser.keys()].sort()).toEqual([...scenario.expectedEvents.keys()].sort());
    for (const [userId, events] of perUser) {
      expect([userId, new Set(events.map((e) => e.partition)).size]).toEqual([userId, 1]);
      expect([userId, events.map((e) => e.type)]).toEqual([userId, scenario.expectedEvents.get(userId)]);
      const times = events.map((e) => e.time);
      expect([userId, times]).toEqual([userId, [...times].sort()]);
    }
    // The users spread over the partitions, so the order above is not an accident of a single one.
    expect(new Set(messages.map((m) => m.partition)).size).toBeGreaterThan(1);
  });

  it('keys each role event by its role, in the order its changes happened; a renamed role’s holders show its new name', async () => {
    const perRole = new Map<string, { partition: number; type: string }[]>();
    const seen = new Set<string>();
    for (const message of orderedByOffset(messages)) {
      const event = JSON.parse(message.value) as CloudEvent<{ role_id?: string }>;
      if (!event.type.startsWith('Role') || seen.has(event.id)) continue;
      seen.add(event.id);
      expect([event.type, message.key, event.data.role_id]).toEqual([event.type, event.subject, event.subject]);
      perRole.set(event.subject, [...(perRole.get(event.subject) ?? []), { partition: message.partition, type: event.type }]);
    }
    expect([...perRole.keys()].sort()).toEqual([...scenario.expectedRoleEvents.keys()].sort());
    for (const [roleId, events] of perRole) {
      expect([roleId, new Set(events.map((e) => e.partition)).size]).toEqual([roleId, 1]);
      expect([roleId, events.map((e) => e.type)]).toEqual([roleId, scenario.expectedRoleEvents.get(roleId)]);
    }
    // The comparison above covers renamed roles only if some user held one when the run ended.
    const truth = await listedUsers(app, scenario.token);
    const renamed = [...scenario.expectedRoleEvents].filter(([, types]) => types.includes('RoleChanged') && !types.includes('RoleDeleted')).map(([id]) => id);
    expect([...truth.values()].some((user) => renamed.includes(user.role._id))).toBe(true);
  });

  it('numbers each subject\'s events 1, 2, 3, … with no gap, in partition order (`subjectsequence`, docs/events)', () => {
    const perSubject = new Map<string, number[]>();
    const seen = new Set<string>();
    for (const message of orderedByOffset(messages)) {
      const event = JSON.parse(message.value) as CloudEvent;
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      perSubject.set(event.subject, [...(perSubject.get(event.subject) ?? []), event.subjectsequence ?? 0]);
    }
    expect(perSubject.size).toBeGreaterThan(5);
    for (const [subject, sequences] of perSubject) {
      expect([subject, sequences]).toEqual([subject, sequences.map((_, i) => i + 1)]);
    }
  });

  it('carries no secret: no password, hash or invitation token in any event', () => {
    const secrets = [...scenario.passwords, ...mailer.sent.map((mail) => CapturingMailer.tokenOf(mail))];
    expect(secrets.length).toBeGreaterThan(0);
    for (const message of messages) {
      expect(secretsIn(message.value)).toEqual([]);
      for (const secret of secrets) expect(message.value.includes(secret)).toBe(false);
    }
  });
});

/** Messages by partition, then offset: a partition's order is the only order Kafka gives. */
function orderedByOffset(messages: readonly ReadMessage[]): ReadMessage[] {
  return [...messages].sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
}

/** The user set as the service shows it: every page of GET /v1/users per status. */
async function listedUsers(app: TestApp, token: string): Promise<Map<string, ReplicaUser>> {
  const users = new Map<string, ReplicaUser>();
  for (const status of STATUSES) {
    for (let page = 1; ; page += 1) {
      const response = await app.request('GET', `/v1/users?status=${status}&page_size=100&page=${page}`, { token });
      expect(response.status).toBe(200);
      for (const user of response.body.users as {
        _id: string;
        email: string;
        name?: string;
        username?: string;
        role: { _id: string; name: string };
      }[]) {
        users.set(user._id, {
          email: user.email,
          ...(user.name !== undefined ? { name: user.name } : {}),
          ...(user.username !== undefined ? { username: user.username } : {}),
          role: { _id: user.role._id, name: user.role.name },
          status,
        });
      }
      if (page >= response.body.pagination.page_count) break;
    }
  }
  const all = await app.request('GET', '/v1/users?page_size=1', { token });
  // No user in a status the three filters miss.
  expect(all.body.pagination.total_document).toBe(users.size);
  expect([...users.values()].some((u) => u.email === ADMIN.email)).toBe(true);
  return users;
}
