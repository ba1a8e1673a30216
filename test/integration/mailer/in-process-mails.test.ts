/**
 * The embedded default's mailer: the invitation handling subscribed to the in-process bus.
 * Temporary failures make the publish fail (the outbox keeps the event); permanent ones and
 * malformed events are logged as dead-lettered and swallowed.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { DataSource } from 'typeorm';
import type { IssueInvitationInput, IssueInvitationOutcome } from '../../../src/application/invitations/issue-invitation.use-case';
import { MailDeliveryError } from '../../../src/application/ports/mailer.port';
import type { Role } from '../../../src/domain/roles/role';
import { Email } from '../../../src/domain/users/email';
import { User } from '../../../src/domain/users/user';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import { FileMailer } from '../../../src/infrastructure/mail/file-mailer';
import type { CloudEvent } from '../../../src/infrastructure/messaging/cloud-event';
import { createInProcessEventBus } from '../../../src/infrastructure/messaging/in-process-event-bus';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { subscribeMails } from '../../../src/interfaces/mailer/in-process-mails';
import { parseMail, tokenFromText } from '../../support/smtp-test-server';
import { buildIssueInvitation, invitedCloudEvent } from './fixtures/issue-invitation.fixture';

const ids = new UuidV7IdGenerator();

interface LogLine {
  level: number;
  msg: string;
  eventId?: string;
  reason?: string;
  error?: string;
  outcome?: string;
}

function capture() {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const logger = createLogger(
    'debug',
    new Writable({
      write(chunk, _encoding, callback) {
        raw.push(String(chunk));
        lines.push(JSON.parse(String(chunk)) as LogLine);
        callback();
      },
    }),
  );
  return { logger, lines, raw };
}

function event(overrides: Partial<CloudEvent> & Record<string, unknown> = {}): CloudEvent {
  const userId = ids.next();
  return {
    specversion: '1.0',
    id: ids.next(),
    type: 'UserInvited',
    source: '/access-control',
    time: new Date().toISOString(),
    subject: userId,
    datacontenttype: 'application/json',
    data: { user_id: userId, email: 'someone@example.com' },
    ...overrides,
  } as CloudEvent;
}

/** A use case that records its calls and answers what it is told. */
function stubUseCase(answer: (input: IssueInvitationInput) => Promise<IssueInvitationOutcome>) {
  const calls: IssueInvitationInput[] = [];
  return {
    calls,
    issueInvitation: {
      execute: (input: IssueInvitationInput) => {
        calls.push(input);
        return answer(input);
      },
    },
  };
}

describe('subscribeMails (in-process bus)', () => {
  it('hands a mail event to the use case with its id and subject, and logs the outcome', async () => {
    const { logger, lines } = capture();
    const { calls, issueInvitation } = stubUseCase(async () => 'sent');
    const bus = createInProcessEventBus();
    subscribeMails(bus, { issueInvitation, logger });

    const invited = event();
    const resent = event({ type: 'UserInvitationResent' });
    await bus.publish([invited, resent]);

    expect(calls).toEqual([
      { eventId: invited.id, userId: invited.subject },
      { eventId: resent.id, userId: resent.subject },
    ]);
    expect(lines.filter((l) => l.msg === 'invitation mail event handled' && l.outcome === 'sent')).toHaveLength(2);
  });

  it('falls back to data.user_id without a subject, and ignores events that ask for no mail', async () => {
    const { logger } = capture();
    const { calls, issueInvitation } = stubUseCase(async () => 'sent');
    const bus = createInProcessEventBus();
    subscribeMails(bus, { issueInvitation, logger });

    const userId = ids.next();
    const noSubject = event({ subject: undefined, data: { user_id: userId } });
    await bus.publish([noSubject, event({ type: 'UserJoined' }), event({ type: 'UserInvitationRevoked' })]);

    expect(calls).toEqual([{ eventId: noSubject.id, userId }]);
  });

  it('a permanent failure is logged as dead-lettered and swallowed: the publish succeeds', async () => {
    const { logger, lines } = capture();
    const { calls, issueInvitation } = stubUseCase(async () => {
      throw new MailDeliveryError('SMTP delivery failed (permanent, EENVELOPE at RCPT TO): 550 Mailbox unavailable', true);
    });
    const bus = createInProcessEventBus();
    subscribeMails(bus, { issueInvitation, logger });

    const bounced = event();
    await expect(bus.publish([bounced])).resolves.toBeUndefined();

    expect(calls).toHaveLength(1);
    const dead = lines.filter((l) => l.msg.startsWith('event dead-lettered'));
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ level: 50, eventId: bounced.id, reason: 'permanent-delivery-failure' });
    expect(dead[0].error).toContain('550');
  });

  it('a malformed event is logged as dead-lettered and swallowed, without calling the use case', async () => {
    const { logger, lines } = capture();
    const { calls, issueInvitation } = stubUseCase(async () => 'sent');
    const bus = createInProcessEventBus();
    subscribeMails(bus, { issueInvitation, logger });

    await expect(
      bus.publish([
        event({ subject: undefined, data: {} }),
        event({ id: 'not-a-uuid' }),
        event({ specversion: '0.3' as '1.0' }),
      ]),
    ).resolves.toBeUndefined();

    expect(calls).toHaveLength(0);
    const dead = lines.filter((l) => l.msg.startsWith('event dead-lettered'));
    expect(dead.map((l) => [l.reason, l.error])).toEqual([
      ['malformed-event', 'UserInvited: subject and data.user_id are missing'],
      ['malformed-event', 'UserInvited: id is not a UUID'],
      ['malformed-event', 'not a CloudEvent: specversion is not "1.0"'],
    ]);
  });

  it('a temporary failure is thrown, so the publish fails and the outbox keeps the event', async () => {
    const { logger, lines } = capture();
    const temporary = new MailDeliveryError('SMTP delivery failed (temporary, EENVELOPE at MAIL FROM): 451 try again later', false);
    const { issueInvitation } = stubUseCase(async () => {
      throw temporary;
    });
    const bus = createInProcessEventBus();
    subscribeMails(bus, { issueInvitation, logger });

    await expect(bus.publish([event()])).rejects.toBe(temporary);
    expect(lines.filter((l) => l.msg.startsWith('event dead-lettered'))).toHaveLength(0);
    expect(lines.filter((l) => l.level === 40 && l.reason?.includes('451'))).toHaveLength(1);
  });

  it('a database failure is thrown too, and logged without the credentials of its URL', async () => {
    const { logger, raw } = capture();
    const { issueInvitation } = stubUseCase(async () => {
      throw new Error('connect failed for mysql://app:Sup3rSecret@db.internal:3306/ac');
    });
    const bus = createInProcessEventBus();
    subscribeMails(bus, { issueInvitation, logger });

    await expect(bus.publish([event()])).rejects.toThrow('connect failed');
    expect(raw.join('')).toContain('connect failed for mysql://***@db.internal');
    expect(raw.join('')).not.toContain('Sup3rSecret');
  });

  it('unsubscribing stops the handling', async () => {
    const { logger } = capture();
    const { calls, issueInvitation } = stubUseCase(async () => 'sent');
    const bus = createInProcessEventBus();
    const unsubscribe = subscribeMails(bus, { issueInvitation, logger });
    unsubscribe();
    await bus.publish([event()]);
    expect(calls).toHaveLength(0);
  });

  describe('with the real use case, SQLite and the FileMailer (the embedded default)', () => {
    let dataSource: DataSource;
    let dataDir: string;

    beforeAll(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'in-process-mails-'));
      dataSource = createDataSource({ kind: 'sqlite', path: ':memory:' });
      await dataSource.initialize();
      await runMigrations(dataSource);
    });

    afterAll(async () => {
      await dataSource?.destroy();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('writes one .eml per invitation, and none for the same event published again', async () => {
      const { logger } = capture();
      const mailer = new FileMailer({ dataDir, from: 'Access Control <no-reply@localhost>', logger });
      const issueInvitation = buildIssueInvitation(dataSource, mailer);
      const bus = createInProcessEventBus();
      subscribeMails(bus, { issueInvitation, logger });

      const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
      const user = User.invite({ id: ids.next(), email: Email.parse('grace@example.com'), role: member, invitedBy: ids.next(), now: new Date(), newId: () => ids.next() });
      const invited = invitedCloudEvent(user);
      await new TypeOrmAdapters(dataSource).users().add(user);

      await bus.publish([invited]);
      await bus.publish([invited]); // the relay retrying a batch: deduplicated by event id

      const files = await readdir(path.join(dataDir, 'mail'));
      expect(files).toHaveLength(1);
      const mail = await parseMail(await readFile(path.join(dataDir, 'mail', files[0]), 'utf8'));
      expect(mail.to).toBe('grace@example.com');
      expect(tokenFromText(mail.text)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });
  });
});
