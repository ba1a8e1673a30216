/**
 * The mailer worker delivering (mail-worker-harness.ts: a real broker, SMTP server and database): one mail per
 * invitation, replays, ordering per user, temporary and permanent SMTP failures, the dead-letter topic.
 */
import type { CloudEvent } from '../../../src/infrastructure/messaging/cloud-event';
import { NodemailerMailer } from '../../../src/infrastructure/mail/nodemailer-mailer';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { buildIssueInvitation } from './fixtures/issue-invitation.fixture';
import { retentionOf } from '../messaging/kafka-test-kit';
import { brokers, ids, type Invitee, mailWorkerHarness, member, sha256, SMTP_PASSWORD } from './mail-worker-harness';

jest.setTimeout(60_000);

describe('KafkaMailWorker delivering (Kafka + SMTP + database)', () => {
  const h = mailWorkerHarness();
  const { logLines, logger, newTopic, invite, message, produce, startWorker, waitUntilCommitted, storedTokenHash, processedCount, tokensMailedTo, expectOneValidMailEach, readTopic, header } = h;

  let burst: { topic: string; invitees: Invitee[] } | undefined;

  it('N invitations → exactly N mails, each with a token whose sha256 is the stored token_hash', async () => {
    const topic = await newTopic(3);
    const invitees = await invite(6, 'burst');
    const worker = await startWorker(topic);
    await produce(topic, invitees.map((i) => message(i.event)));

    await h.smtp.waitFor((all) => invitees.every((i) => all.some((m) => m.envelopeTo.includes(i.email))), 20_000, 'one mail per invitee');
    await waitUntilCommitted(worker.groupId, topic);

    await expectOneValidMailEach(invitees);
    expect(await processedCount(invitees.map((i) => i.event.id))).toBe(6);
    const mail = h.smtp.messagesTo(invitees[0].email)[0];
    expect((await mail.parsed()).text).toContain(`https://ac.example.test/invitations/accept?token=`);
    burst = { topic, invitees };
  });

  it('a replay of the topic from the beginning by a new consumer group sends no new mail', async () => {
    expect(burst).toBeDefined();
    const { topic, invitees } = burst!;
    const before = h.smtp.messages.length;
    const hashes = await Promise.all(invitees.map((i) => storedTokenHash(i.user.id)));

    const replay = await startWorker(topic, { fromBeginning: true });
    await waitUntilCommitted(replay.groupId, topic);

    expect(h.smtp.messages.length).toBe(before);
    expect(await Promise.all(invitees.map((i) => storedTokenHash(i.user.id)))).toEqual(hashes);
    const duplicates = logLines.filter((line) => line.includes('handled: duplicate') && invitees.some((i) => line.includes(i.event.id)));
    expect(duplicates).toHaveLength(6);
  });

  it('one partition: different users\' mails go out at once, one user\'s events strictly in order', async () => {
    const topic = await newTopic(1);
    const invitees = await invite(8, 'parallel');
    // The first invitee's invitation is resent: its two events share a key and must not overlap.
    const first = invitees[0]!;
    first.user.resendInvitation({ by: ids.next(), role: member, now: new Date(), newId: () => ids.next() });
    const [resent] = first.user.pullDomainEvents();
    expect(resent?.type).toBe('UserInvitationResent');
    const resentEvent: CloudEvent = { ...first.event, id: resent!.id, type: resent!.type, time: resent!.occurredAt.toISOString(), data: resent!.data };
    await new TypeOrmAdapters(h.dataSource).users().update(first.user);

    const pooled = new NodemailerMailer({ smtpUrl: h.smtp.url, from: 'Access Control <no-reply@ac.example.test>', logger, maxConnections: 4 });
    try {
      h.smtp.setLatency(150);
      h.smtp.resetPeak();
      const worker = await startWorker(topic, { issueInvitation: buildIssueInvitation(h.dataSource, pooled), mailsInFlightPerPartition: 8 });
      await produce(topic, [message(first.event), message(resentEvent), ...invitees.slice(1).map((i) => message(i.event))]);
      await h.smtp.waitFor((all) => invitees.every((i) => all.some((m) => m.envelopeTo.includes(i.email))) && h.smtp.messagesTo(first.email).length === 2, 30_000, 'the mails');
      await waitUntilCommitted(worker.groupId, topic);

      // Several users' mails were in the SMTP server at once, on one partition.
      expect(h.smtp.peakDataInFlight).toBeGreaterThan(1);
      await expectOneValidMailEach(invitees.slice(1));
      // The resend was handled only after the first mail was accepted: its mail came at least one
      // SMTP latency later, and the live token is the resent one.
      const [invitedMail, resentMail] = h.smtp.messagesTo(first.email);
      expect(resentMail!.receivedAt.getTime() - invitedMail!.receivedAt.getTime()).toBeGreaterThanOrEqual(140);
      const tokens = await tokensMailedTo(first.email);
      expect(sha256(tokens[1]!)).toBe(await storedTokenHash(first.user.id));
    } finally {
      h.smtp.setLatency(0);
      await pooled.close();
    }
  });

  it('SMTP answering 4xx for a while: the mail is delivered after retries, exactly once', async () => {
    const topic = await newTopic(1);
    const [invitee] = await invite(1, 'greylist');
    const faultsBefore = h.smtp.faults.length;
    h.smtp.failNext(4, 451);
    const worker = await startWorker(topic);
    await produce(topic, [message(invitee.event)]);

    await h.smtp.waitFor((all) => all.some((m) => m.envelopeTo.includes(invitee.email)), 20_000, 'the greylisted mail');
    await waitUntilCommitted(worker.groupId, topic);

    expect(h.smtp.faults.slice(faultsBefore)).toEqual(Array(4).fill({ command: 'MAIL FROM', code: 451 }));
    await expectOneValidMailEach([invitee]);
    const retries = logLines.filter((line) => line.includes('temporary failure; retrying') && line.includes(`"topic":"${topic}"`));
    expect(retries).toHaveLength(4);
    expect(retries.every((line) => line.includes('451'))).toBe(true);
  });

  it('a 5xx address and malformed messages go to the dead-letter topic; the next good message is still delivered', async () => {
    const topic = await newTopic(1);
    const [bounced, good] = await invite(2, 'dlq');
    h.smtp.rejectRecipient(bounced.email, 550);
    const withoutSubject = { ...good.event, id: ids.next(), subject: undefined, data: { email: 'x@example.com' } };
    const joined = { ...good.event, id: ids.next(), type: 'UserJoined' };
    const worker = await startWorker(topic);

    // One partition: the good message comes after every bad one.
    await produce(topic, [
      message(bounced.event, { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } }),
      { key: 'junk', value: '{"this is": not JSON' },
      { key: good.user.id, value: JSON.stringify(withoutSubject) },
      { key: good.user.id, value: JSON.stringify(joined) },
      message(good.event),
    ]);

    await h.smtp.waitFor((all) => all.some((m) => m.envelopeTo.includes(good.email)), 20_000, 'the good mail');
    await waitUntilCommitted(worker.groupId, topic);
    await expectOneValidMailEach([good]);
    expect(h.smtp.messagesTo(bounced.email)).toHaveLength(0);

    // The dead-letter topic has partitions of its own: put the letters back in source order.
    const dead = (await readTopic(worker.deadLetterTopic, 3)).sort(
      (a, b) => Number(header(a, 'x-dlq-source-offset')) - Number(header(b, 'x-dlq-source-offset')),
    );
    expect(dead).toHaveLength(3);
    const [first, second, third] = dead;
    // The worker created the topic (no migrate step here): kept for good, as the migrate step makes it.
    expect(await retentionOf(brokers, [worker.deadLetterTopic])).toEqual({ [worker.deadLetterTopic]: '-1' });

    expect(first.key?.toString()).toBe(bounced.user.id);
    expect(first.value?.toString()).toBe(JSON.stringify(bounced.event));
    expect(header(first, 'traceparent')).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(header(first, 'x-dlq-reason')).toBe('permanent-delivery-failure');
    expect(header(first, 'x-dlq-error')).toMatch(/550/);
    expect(header(first, 'x-dlq-source-topic')).toBe(topic);
    expect(header(first, 'x-dlq-source-offset')).toBe('0');
    expect(header(first, 'x-dlq-consumer-group')).toBe(worker.groupId);

    expect(second.key?.toString()).toBe('junk');
    expect(second.value?.toString()).toBe('{"this is": not JSON');
    expect(header(second, 'x-dlq-reason')).toBe('malformed-event');
    expect(header(second, 'x-dlq-error')).toBe('the message value is not JSON');
    expect(header(second, 'x-dlq-source-offset')).toBe('1');

    expect(header(third, 'x-dlq-reason')).toBe('malformed-event');
    expect(header(third, 'x-dlq-error')).toBe('UserInvited: subject and data.user_id are missing');
    expect(header(third, 'x-dlq-source-offset')).toBe('2');

    for (const m of dead) {
      const text = JSON.stringify(Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, v?.toString()])));
      expect(text).not.toContain(SMTP_PASSWORD);
      expect(text).not.toMatch(/token=/);
    }
    const deadLogged = logLines.filter((line) => line.includes('event dead-lettered') && line.includes(`"topic":"${topic}"`));
    expect(deadLogged).toHaveLength(3);
  });
});
