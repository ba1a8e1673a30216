/**
 * FileMailer, the embedded default's mailer: an RFC 822 .eml file per mail under DATA_DIR/mail,
 * named to sort by time, and the link logged (PRODUCT.md asks for it in that mode).
 */
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { MailDeliveryError } from '../../../src/application/ports/mailer.port';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import { createMailer } from '../../../src/infrastructure/mail/create-mailer';
import { FileMailer } from '../../../src/infrastructure/mail/file-mailer';
import { NodemailerMailer } from '../../../src/infrastructure/mail/nodemailer-mailer';
import { parseMail, tokenFromText } from '../../support/smtp-test-server';

const FROM = 'Access Control <no-reply@localhost>';

function capturedLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { logger: createLogger('info', stream), lines };
}

describe('FileMailer', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'file-mailer-'));
  });

  afterEach(async () => {
    await chmod(dataDir, 0o700).catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('writes a parseable .eml with both bodies, the link and the From, and logs the path and the link', async () => {
    const { logger, lines } = capturedLogger();
    const at = new Date('2026-01-31T12:00:00.123Z');
    const mailer = new FileMailer({ dataDir, from: FROM, logger, clock: { now: () => at } });
    const link = 'http://localhost:3000/invitations/accept?token=Tok_en-123456789';

    await mailer.sendInvitation({ to: 'ada@example.com', name: 'Ada Lovelace', link, expiresAt: new Date('2026-02-07T12:00:00.000Z') });

    const files = await readdir(path.join(dataDir, 'mail'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^20260131T120000123Z-000001-[0-9a-f]{6}\.eml$/);
    const file = path.join(dataDir, 'mail', files[0]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const raw = await readFile(file, 'utf8');
    expect(raw).toMatch(/\r\n\r\n/); // RFC 822: CRLF line ends, headers then a blank line
    expect(raw).not.toMatch(/[^\r]\n/);
    const mail = await parseMail(raw);
    expect(mail.from).toBe(FROM);
    expect(mail.to).toBe('Ada Lovelace <ada@example.com>');
    expect(mail.subject).toBe('Your invitation to Access Control');
    expect(mail.headers.date).toBe('Sat, 31 Jan 2026 12:00:00 +0000');
    expect(mail.headers['message-id']).toMatch(/^<.+@.+>$/);
    expect(tokenFromText(mail.text)).toBe('Tok_en-123456789');
    expect(tokenFromText(mail.html)).toBe('Tok_en-123456789');
    expect(mail.text).toContain('This invitation is for ada@example.com.');

    const logged = lines.map((line) => JSON.parse(line) as { level: number; file?: string; link?: string; msg: string });
    const entry = logged.find((l) => l.file !== undefined);
    expect(entry).toMatchObject({ level: 30, file, link });
    expect(entry?.msg).toContain(link);
  });

  it('names files so that they sort in the order the mails were written', async () => {
    const { logger } = capturedLogger();
    const times = ['2026-01-31T12:00:00.999Z', '2026-01-31T12:00:01.000Z', '2026-01-31T12:00:01.000Z', '2026-02-01T00:00:00.000Z'];
    let i = 0;
    const mailer = new FileMailer({ dataDir, from: FROM, logger, clock: { now: () => new Date(times[i]) } });
    const written: string[] = [];
    for (; i < times.length; i++) {
      await mailer.sendInvitation({ to: `u${i}@example.com`, link: `http://x/invitations/accept?token=t${i}`, expiresAt: new Date() });
      const files = await readdir(path.join(dataDir, 'mail'));
      written.push(files.find((f) => !written.includes(f))!);
    }
    expect(written).toHaveLength(4);
    expect([...written].sort()).toEqual(written);
  });

  it('an unwritable directory is a temporary failure', async () => {
    const { logger } = capturedLogger();
    await writeFile(path.join(dataDir, 'mail'), 'a file where the directory should be');
    const error = await new FileMailer({ dataDir, from: FROM, logger })
      .sendInvitation({ to: 'x@example.com', link: 'http://x/invitations/accept?token=secret-token', expiresAt: new Date() })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as MailDeliveryError).permanent).toBe(false);
    expect((error as MailDeliveryError).message).not.toContain('secret-token');
  });

  it('createMailer picks files without SMTP_URL and SMTP with it', async () => {
    const { logger } = capturedLogger();
    const local = createMailer({ smtpUrl: null, mailFrom: FROM, dataDir }, logger);
    const smtp = createMailer({ smtpUrl: 'smtp://u:p@127.0.0.1:1', mailFrom: FROM, dataDir }, logger);
    expect(local).toBeInstanceOf(FileMailer);
    expect(smtp).toBeInstanceOf(NodemailerMailer);
    await Promise.all([local.close(), smtp.close()]);
  });
});
