import { auditRecorderFor } from '../../support/fakes/audit-recorder';
/**
 * The published event contract (docs/events/*.schema.json and docs/asyncapi.yaml) against the
 * events the relay really emits: every type written through the domain and the outbox,
 * published to Kafka, read back raw.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { DataSource } from 'typeorm';
import { parse } from 'yaml';
import { loadConfig } from '../../../src/infrastructure/config/config';
import { AUDIT_EVENT_TYPE, type CloudEvent, dataSchemaFor, EVENT_TYPES } from '../../../src/infrastructure/messaging/cloud-event';
import type { TransactionScope, UnitOfWork } from '../../../src/application/ports/unit-of-work.port';
import { RequestPasswordResetUseCase } from '../../../src/application/password-reset/request-password-reset.use-case';
import { RoleEntity } from '../../../src/domain/roles/role.entity';
import { ServiceAccount } from '../../../src/domain/service-accounts/service-account';
import { SEEDED_PERMISSIONS, SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { KafkaEventPublisher } from '../../../src/infrastructure/messaging/kafka-event-publisher';
import { OutboxRelay } from '../../../src/infrastructure/messaging/outbox-relay';
import { AuditSealer } from '../../../src/infrastructure/persistence/typeorm/audit/audit-sealer';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { capturingLogger, createTopic, kafkaBrokers, keysOf, type ReadMessage, secretsIn, startReader, uniqueTopic } from './kafka-test-kit';
import { UserLifecycle } from './user-lifecycle';

const DOCS = path.resolve(__dirname, '../../../docs');
const EVENTS_DIR = path.join(DOCS, 'events');

type Json = Record<string, unknown>;

const asyncapi = parse(readFileSync(path.join(DOCS, 'asyncapi.yaml'), 'utf8')) as Json;
const schemaFiles = readdirSync(EVENTS_DIR).filter((f) => f.endsWith('.schema.json')).sort();
const schemas = new Map(schemaFiles.map((file) => [file, JSON.parse(readFileSync(path.join(EVENTS_DIR, file), 'utf8')) as Json]));

function ajv(): Ajv2020 {
  const instance = new Ajv2020({ allErrors: true, strict: true });
  addFormats(instance);
  return instance;
}

/** The value at a local `#/a/b` pointer of the AsyncAPI document. */
function resolvePointer(pointer: string): unknown {
  return pointer
    .replace(/^#\//, '')
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, part) => (node as Json | undefined)?.[part], asyncapi);
}

/** Follows `$ref`s inside the AsyncAPI document (not into files). */
function deref<T = Json>(node: unknown): T {
  let current = node as Json;
  while (current && typeof current.$ref === 'string' && current.$ref.startsWith('#/')) current = resolvePointer(current.$ref) as Json;
  return current as T;
}

function allRefs(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(allRefs);
  if (node !== null && typeof node === 'object') {
    return Object.entries(node).flatMap(([key, value]) => (key === '$ref' && typeof value === 'string' ? [value] : allRefs(value)));
  }
  return [];
}

/** What one AsyncAPI message says: payload schema file, headers schema, key schema (traits applied). */
function messageContract(type: string) {
  const message = deref((asyncapi.components as Json).messages as Json)[type] as Json;
  const traits = ((message.traits as unknown[]) ?? []).map((t) => deref(t));
  const pick = (name: string) => message[name] ?? traits.map((t) => t[name]).find((v) => v !== undefined);
  const payload = message.payload as { schemaFormat: string; schema: { $ref: string } };
  const kafka = deref((pick('bindings') as Json).kafka) as Json;
  return {
    message,
    payload,
    contentType: pick('contentType') as string,
    headers: deref(pick('headers')),
    key: deref(kafka.key),
  };
}

describe('event contract: JSON Schemas and AsyncAPI', () => {
  it('has one JSON Schema (draft 2020-12) per event type, identified by its dataschema URN', () => {
    expect(schemaFiles).toEqual([...EVENT_TYPES, AUDIT_EVENT_TYPE].map((t) => `${t}.schema.json`).sort());
    for (const type of [...EVENT_TYPES, AUDIT_EVENT_TYPE]) {
      const schema = schemas.get(`${type}.schema.json`)!;
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id).toBe(dataSchemaFor(type));
      expect(schema).toMatchObject({ properties: { type: { const: type }, dataschema: { const: dataSchemaFor(type) } } });
      expect(() => ajv().compile(schema)).not.toThrow();
    }
  });

  it('is an AsyncAPI 3.0 document whose channel is the topic and whose messages reference every schema file', () => {
    expect(asyncapi.asyncapi).toBe('3.0.0');
    // Two channels: the user events, and the audit trail's on a topic of its own (#23).
    const kafka = loadConfig({ KAFKA_BROKERS: 'localhost:9092' }).kafka!;
    const { userEvents: channel, auditEvents: auditChannel } = asyncapi.channels as Record<string, Json>;
    expect(Object.keys(asyncapi.channels as Json).sort()).toEqual(['auditEvents', 'userEvents']);
    expect(channel!.address).toBe(kafka.topic);
    expect(auditChannel!.address).toBe(kafka.auditTopic);
    expect(Object.keys(channel!.messages as Json).sort()).toEqual([...EVENT_TYPES].sort());
    expect(Object.keys(auditChannel!.messages as Json)).toEqual([AUDIT_EVENT_TYPE]);

    const operations = asyncapi.operations as Record<string, Json>;
    expect(Object.values(operations).map((o) => [o.action, deref(o.channel)])).toEqual([['send', auditChannel], ['send', channel]]);
    expect(((operations.publishUserEvents!.messages as unknown[]) ?? []).map((m) => (deref(m) as Json).name).sort()).toEqual([...EVENT_TYPES].sort());
    expect(((operations.publishAuditEvents!.messages as unknown[]) ?? []).map((m) => (deref(m) as Json).name)).toEqual([AUDIT_EVENT_TYPE]);

    const referenced: string[] = [];
    for (const type of [...EVENT_TYPES, AUDIT_EVENT_TYPE]) {
      const contract = messageContract(type);
      expect(deref(((type === AUDIT_EVENT_TYPE ? auditChannel : channel)!.messages as Json)[type])).toBe(contract.message);
      expect(contract.message.name).toBe(type);
      expect(contract.contentType).toBe('application/cloudevents+json; charset=UTF-8');
      expect(contract.payload.schemaFormat).toBe('application/schema+json;version=draft-2020-12');
      const file = path.resolve(DOCS, contract.payload.schema.$ref);
      expect(existsSync(file)).toBe(true);
      expect(path.basename(file)).toBe(`${type}.schema.json`);
      referenced.push(path.basename(file));
      expect(contract.headers).toMatchObject({ required: ['content-type', 'ce_id', 'ce_type'] });
      expect(contract.key).toMatchObject({ type: 'string', format: 'uuid' });
    }
    expect(referenced.sort()).toEqual(schemaFiles);

    // Every reference resolves: a local pointer to a node, a relative path to a file.
    for (const ref of allRefs(asyncapi)) {
      if (ref.startsWith('#/')) expect([ref, resolvePointer(ref) !== undefined]).toEqual([ref, true]);
      else expect([ref, existsSync(path.resolve(DOCS, ref))]).toEqual([ref, true]);
    }
  });

  it('schemas reject what breaks the contract (they constrain, not just describe)', () => {
    const validate = ajv().compile(schemas.get('UserJoined.schema.json')!);
    const good = {
      specversion: '1.0',
      id: '019a3c1e-8f0b-7c41-9d2e-5b8f0a1c2d3e',
      type: 'UserJoined',
      source: '/access-control',
      time: '2026-01-31T12:00:00.123Z',
      subject: '019a3c1e-8f0a-7b11-8a6f-0e2d4c6b8a10',
      datacontenttype: 'application/json',
      dataschema: dataSchemaFor('UserJoined'),
      data: {
        user_id: '019a3c1e-8f0a-7b11-8a6f-0e2d4c6b8a10',
        email: 'ada@example.com',
        username: 'ada',
        name: 'Ada',
        role: { _id: '01a1fc94-6d94-7441-a6a7-5c24f14ccb6a', name: 'member' },
        joined_date: '2026-01-31T12:00:00.123Z',
      },
    };
    expect(validate(good) ? [] : validate.errors).toEqual([]);
    const broken: [string, unknown][] = [
      ['missing username', { ...good, data: { ...good.data, username: undefined } }],
      ['wrong type', { ...good, type: 'UserInvited' }],
      ['time without milliseconds', { ...good, time: '2026-01-31T12:00:00Z' }],
      ['subject not a uuid', { ...good, subject: 'ada' }],
      ['role without id', { ...good, data: { ...good.data, role: { name: 'member' } } }],
    ];
    for (const [why, event] of broken) expect([why, validate(JSON.parse(JSON.stringify(event)))]).toEqual([why, false]);
  });

  describe('against the events the relay emits to Kafka', () => {
    let database: TestDatabase;
    let dataSource: DataSource;
    let received: ReadMessage[];
    let written: { type: string; userId: string; eventId: string }[];
    let audited: ReadMessage[];

    beforeAll(async () => {
      database = await createTestDatabase('ac_contract');
      dataSource = createDataSource(database.config);
      await dataSource.initialize();
      await runMigrations(dataSource);

      const topic = uniqueTopic('event-contract');
      await createTopic(topic, 2);
      const auditTopic = uniqueTopic('event-contract-audit');
      await createTopic(auditTopic, 1);
      const lifecycle = new UserLifecycle(new TypeOrmAdapters(dataSource).unitOfWork());
      written = [];
      const record = (w: { userId: string; eventIds: string[]; types: string[] }) =>
        w.eventIds.forEach((eventId, i) => written.push({ type: w.types[i]!, userId: w.userId, eventId }));
      const joiner = await lifecycle.invite('joiner@example.com', 'Joiner');
      record(joiner);
      record(await lifecycle.join(joiner.userId, 'joiner'));
      const revoked = await lifecycle.invite('ünïcode.revoked@exämple.com');
      record(revoked);
      record(await lifecycle.resend(revoked.userId));
      record(await lifecycle.revoke(revoked.userId));
      record(await lifecycle.renameAndPromote(joiner.userId, 'Renamed Joiner'));
      record(await lifecycle.deactivate(joiner.userId));
      record(await lifecycle.reactivate(joiner.userId));
      record(await lifecycle.erase(joiner.userId));
      // The bootstrap admin: its UserJoined is the only event announcing it (issue #11).
      const admin = await lifecycle.createJoined('bootstrap.admin@example.com', 'bootstrap.admin');
      record(admin);
      // Second factors (#24): enrolled, then reset by an admin.
      record(await lifecycle.enrollMfa(admin.userId));
      record(await lifecycle.resetMfa(admin.userId));
      // Password reset (#10): asked for an active user, through the use case, so the event is the one it records.
      const resetIds = new UuidV7IdGenerator();
      let resetEventId = '';
      await new RequestPasswordResetUseCase({ auditRecorder: auditRecorderFor().auditRecorder,
        unitOfWork: new TypeOrmAdapters(dataSource).unitOfWork(),
        clock: { now: () => new Date() },
        idGenerator: { next: () => (resetEventId = resetIds.next()) },
      })
        .execute({ email: 'Bootstrap.Admin@example.com' })
        .then((accepted) => accepted.record());
      record({ userId: admin.userId, eventIds: [resetEventId], types: ['PasswordResetRequested'] });
      // Role administration (#11): Role* events are keyed by the role id (`userId` here holds it).
      await roleLifecycle(new TypeOrmAdapters(dataSource).unitOfWork(), record);
      // Service accounts (#21): ServiceAccount* events are keyed by the account id.
      await serviceAccountLifecycle(new TypeOrmAdapters(dataSource).unitOfWork(), record);

      const publisher = new KafkaEventPublisher({ brokers: kafkaBrokers(), topic, auditTopic, clientId: 'contract-test', logger: capturingLogger('warn').logger });
      const relay = new OutboxRelay({ dataSource, publisher, logger: capturingLogger('warn').logger });
      try {
        await publisher.connect();
        // The reset request's audit entry (#23) goes to the outbox once the sealer links it, then to the audit topic.
        expect(await relay.flush()).toBe(written.length);
        const sqliteWriteQueue = new TypeOrmAdapters(dataSource).services.sqliteWriteQueue;
        expect(await new AuditSealer({ dataSource, sqliteWriteQueue }).sealAll()).toBe(1);
        expect(await relay.flush()).toBe(1);
      } finally {
        await publisher.close();
      }
      const reader = await startReader(topic);
      try {
        received = [...(await reader.waitFor(written.length))];
      } finally {
        await reader.stop();
      }
      const auditReader = await startReader(auditTopic);
      try {
        audited = [...(await auditReader.waitFor(1))];
      } finally {
        await auditReader.stop();
      }
    });

    afterAll(async () => {
      if (dataSource?.isInitialized) await dataSource.destroy();
      await database?.drop();
    });

    it('publishes the audit trail to its own topic, each entry valid against AuditEventRecorded (#23)', () => {
      const validate = ajv().compile(schemas.get(`${AUDIT_EVENT_TYPE}.schema.json`)!);
      expect(audited).toHaveLength(1);
      const event = JSON.parse(audited[0]!.value) as CloudEvent<Json>;
      expect([validate(event) ? [] : validate.errors, audited[0]!.headers.ce_type, audited[0]!.key]).toEqual([[], AUDIT_EVENT_TYPE, event.id]);
      expect(event.data).toMatchObject({ action: 'auth.password_reset_requested', outcome: 'success', chain: { seq: 1, link: expect.stringMatching(/^[0-9a-f]{64}$/) } });
      // Nothing the schema does not declare (it allows additional properties, so validation alone would not tell).
      const declared = Object.keys((schemas.get(`${AUDIT_EVENT_TYPE}.schema.json`)!.$defs as Json as { data: { properties: Json } }).data.properties);
      expect(Object.keys(event.data as Json).filter((key) => !declared.includes(key))).toEqual([]);
    });

    it('covers every event type', () => {
      expect(received).toHaveLength(written.length);
      expect(new Set(received.map((m) => m.headers.ce_type))).toEqual(new Set(EVENT_TYPES));
    });

    it('every value validates against its type\'s JSON Schema, and declares nothing the schema does not', () => {
      const validators = new Map<string, ValidateFunction>();
      const compiler = ajv();
      for (const type of EVENT_TYPES) validators.set(type, compiler.compile(schemas.get(`${type}.schema.json`)!));
      for (const message of received) {
        const event = JSON.parse(message.value) as CloudEvent<Json>;
        const validate = validators.get(event.type)!;
        expect([event.type, validate(event) ? [] : validate.errors]).toEqual([event.type, []]);
        // Schemas allow additional properties (consumers ignore unknown fields), so an undocumented
        // field would pass validation: check there is none.
        const schema = schemas.get(`${event.type}.schema.json`)!;
        const envelopeFields = Object.keys(schema.properties as Json);
        const dataFields = Object.keys(((schema.$defs as Json).data as Json).properties as Json);
        expect(Object.keys(event).filter((k) => !envelopeFields.includes(k))).toEqual([]);
        expect(Object.keys(event.data).filter((k) => !dataFields.includes(k))).toEqual([]);
        const w = written.find((x) => x.eventId === event.id)!;
        expect([event.type, event.subject, event.data.user_id ?? event.data.service_account_id ?? event.data.role_id]).toEqual([w.type, w.userId, w.userId]);
      }
    });

    it('key and headers match the AsyncAPI message, and no secret travels', () => {
      const compiler = ajv();
      for (const message of received) {
        const event = JSON.parse(message.value) as CloudEvent;
        const contract = messageContract(event.type);
        const headers = compiler.compile(contract.headers);
        const key = compiler.compile(contract.key);
        expect(headers(message.headers) ? [] : headers.errors).toEqual([]);
        expect(key(message.key) ? [] : key.errors).toEqual([]);
        expect(message.key).toBe(event.subject);
        expect(message.headers).toMatchObject({ ce_id: event.id, ce_type: event.type });
        expect(secretsIn(message.value)).toEqual([]);
        expect(keysOf(event)).not.toContain('passwordHash');
      }
    });
  });
});

/** A custom role created, renamed and re-permissioned, then deleted, each in its own unit of work, as the use cases do. */
async function roleLifecycle(
  unitOfWork: UnitOfWork,
  record: (w: { userId: string; eventIds: string[]; types: string[] }) => void,
): Promise<void> {
  const ids = new UuidV7IdGenerator();
  const by = { by: ids.next(), now: new Date(), newId: () => ids.next() };
  const commit = async (work: (roles: TransactionScope['roles']) => Promise<RoleEntity>) => {
    const events = await unitOfWork.run(async (scope) => {
      const role = await work(scope.roles);
      const pulled = role.pullDomainEvents();
      await scope.outbox.append(pulled);
      return pulled;
    });
    record({ userId: events[0]!.aggregateId, eventIds: events.map((e) => e.id), types: events.map((e) => e.type) });
  };
  const permission = { id: SEEDED_PERMISSIONS[0].id, name: SEEDED_PERMISSIONS[0].name };
  const roleId = ids.next();
  await commit(async (roles) => {
    const role = RoleEntity.create({ id: roleId, name: 'auditor', permissions: [permission], ...by });
    await roles.insert(role);
    return role;
  });
  await commit(async (roles) => {
    const role = (await roles.findForChange(roleId))!;
    role.change({ name: 'auditors', permissions: [], ...by });
    await roles.update(role);
    return role;
  });
  await commit(async (roles) => {
    const role = (await roles.findForChange(roleId))!;
    role.delete(by);
    await roles.delete(role, SEEDED_ROLES.member);
    return role;
  });
}

/** A service account created, changed, given a second secret, re-keyed, rid of its first secret, then deleted (#21). */
async function serviceAccountLifecycle(
  unitOfWork: UnitOfWork,
  record: (w: { userId: string; eventIds: string[]; types: string[] }) => void,
): Promise<void> {
  const ids = new UuidV7IdGenerator();
  const by = () => ({ by: ids.next(), now: new Date(), newId: () => ids.next() });
  const accountId = ids.next();
  const firstSecret = ids.next();
  const commit = async (work: (accounts: TransactionScope['serviceAccounts']) => Promise<ServiceAccount>) => {
    const events = await unitOfWork.run(async (scope) => {
      const account = await work(scope.serviceAccounts);
      const pulled = account.pullDomainEvents();
      await scope.outbox.append(pulled);
      return pulled;
    });
    record({ userId: events[0]!.aggregateId, eventIds: events.map((e) => e.id), types: events.map((e) => e.type) });
  };
  const change = (edit: (account: ServiceAccount) => void) =>
    commit(async (accounts) => {
      const account = (await accounts.findForChange(accountId))!;
      edit(account);
      await accounts.update(account);
      return account;
    });
  await commit(async (accounts) => {
    const account = ServiceAccount.create({
      id: accountId, clientId: ids.next(), name: 'reports', description: 'Nightly', roleId: SEEDED_ROLES.member, secret: { id: firstSecret, hash: 'a'.repeat(64) }, ...by(),
    });
    await accounts.insert(account);
    return account;
  });
  await change((account) => account.change({ name: 'reporting', description: null, roleId: SEEDED_ROLES.admin, disabled: true, ...by() }));
  await change((account) => account.addSecret({ id: ids.next(), hash: 'b'.repeat(64), expiresAt: new Date(Date.now() + 3_600_000) }, by()));
  await change((account) => account.replaceKeys([{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' }], by()));
  await change((account) => account.removeSecret(firstSecret, by()));
  await commit(async (accounts) => {
    const account = (await accounts.findForChange(accountId))!;
    account.delete(by());
    await accounts.delete(account);
    return account;
  });
}
