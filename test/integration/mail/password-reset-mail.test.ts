/**
 * The password-reset mail (#10) as the embedded default's FileMailer writes it: an .eml with the link in
 * both bodies, and unlike an invitation, no link in the log (it would let a log reader take the account).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import { FileMailer } from '../../../src/infrastructure/mail/file-mailer';
import { renderPasswordResetMail } from '../../../src/infrastructure/mail/password-reset-mail.template';
import { parseMail } from '../../support/smtp-test-server';

/** The token of the reset link in a body (tokenFromText reads invitation links). */
const resetTokenIn = (text: string | undefined) => /\/password-reset\?token=([^\s"'<>&]+)/.exec(text ?? '')?.[1];

const FROM = 'Access Control <no-reply@localhost>';

describe('the password-reset mail', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'reset-mail-'));
  });
  afterEach(async () => rm(dataDir, { recursive: true, force: true }));

  it('is written as an .eml with the link in both bodies and its expiry, and the log names the file but not the link', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }));
    const mailer = new FileMailer({ dataDir, from: FROM, logger, clock: { now: () => new Date('2026-01-31T12:00:00.123Z') } });
    const link = 'http://localhost:3000/password-reset?token=Res_et-123456789';

    await mailer.sendPasswordReset({ to: 'ada@example.com', name: 'Ada Lovelace', link, expiresAt: new Date('2026-01-31T13:00:00.123Z') });

    const [file] = await readdir(path.join(dataDir, 'mail'));
    const mail = await parseMail(await readFile(path.join(dataDir, 'mail', file!), 'utf8'));
    expect(mail.subject).toBe('Reset your Access Control password');
    expect(mail.to).toBe('Ada Lovelace <ada@example.com>');
    expect(resetTokenIn(mail.text)).toBe('Res_et-123456789');
    expect(resetTokenIn(mail.html)).toBe('Res_et-123456789');
    expect(mail.text).toContain('expires on Saturday 31 January 2026 at 13:00 UTC');
    expect(lines.join('')).toContain(file);
    expect(lines.join('')).not.toContain('Res_et-123456789');
  });

  it('escapes every value in the HTML body and flattens line breaks of the name', () => {
    const rendered = renderPasswordResetMail({
      to: 'x@example.com',
      name: 'Eve <script>alert(1)</script>\r\nBcc: victim@example.com',
      link: 'https://ac.example.com/password-reset?token=a"b<c',
      expiresAt: new Date('2026-01-31T13:00:00.000Z'),
    });
    expect(rendered.html).not.toContain('<script>');
    expect(rendered.html).toContain('&lt;script&gt;');
    expect(rendered.html).toContain('token=a&quot;b&lt;c');
    expect(rendered.text.split('\n')[0]).toBe('Hello Eve <script>alert(1)</script> Bcc: victim@example.com,');
  });
});
