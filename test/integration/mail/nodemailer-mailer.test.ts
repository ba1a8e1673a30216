/**
 * NodemailerMailer against a real SMTP server in the test process: what the mail says, and how
 * each kind of failure is classified (temporary or permanent) without leaking a secret.
 */
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { MailDeliveryError, type InvitationMail } from '../../../src/application/ports/mailer.port';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import { NodemailerMailer, parseSmtpUrl } from '../../../src/infrastructure/mail/nodemailer-mailer';
import { SmtpTestServer, tokenFromText } from '../../support/smtp-test-server';

const PASSWORD = 'p@ss:w0rd/with%odd chars';
const TOKEN = 'tok_ABCdef0123456789-_xyzXYZ0123456789abcdefg';
const FROM = 'Access Control <no-reply@ac.example.test>';

function invitation(to: string, overrides: Partial<InvitationMail> = {}): InvitationMail {
  return {
    to,
    name: 'Zoë <script>alert(1)</script> & Co',
    link: `https://ac.example.test/invitations/accept?token=${encodeURIComponent(TOKEN)}`,
    expiresAt: new Date('2026-02-07T12:00:00.000Z'),
    ...overrides,
  };
}

function capturedLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { logger: createLogger('trace', stream), lines };
}

async function failureOf(promise: Promise<unknown>): Promise<MailDeliveryError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(MailDeliveryError);
    return error as MailDeliveryError;
  }
  throw new Error('expected the send to fail');
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('NodemailerMailer', () => {
  let smtp: SmtpTestServer;
  const mailers: NodemailerMailer[] = [];
  const log = capturedLogger();

  const mailer = (url = smtp.url, extra: Partial<ConstructorParameters<typeof NodemailerMailer>[0]> = {}) => {
    const created = new NodemailerMailer({ smtpUrl: url, from: FROM, logger: log.logger, ...extra });
    mailers.push(created);
    return created;
  };

  beforeAll(async () => {
    smtp = await SmtpTestServer.start({ username: 'mailer', password: PASSWORD });
  });

  afterEach(() => smtp.clearFaults());

  afterAll(async () => {
    await Promise.all(mailers.map((m) => m.close()));
    await smtp.close();
    // Whatever happened above, neither secret reached a log line.
    const all = log.lines.join('\n');
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(encodeURIComponent(PASSWORD));
  });

  it('parses SMTP_URL with percent-encoded credentials, smtps and TLS options', () => {
    expect(parseSmtpUrl(smtp.url)).toEqual({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      auth: { user: 'mailer', pass: PASSWORD },
    });
    expect(parseSmtpUrl('smtps://relay.example.com?tls.rejectUnauthorized=false&name=ac.local')).toEqual({
      host: 'relay.example.com',
      port: undefined,
      secure: true,
      name: 'ac.local',
      tls: { rejectUnauthorized: false },
    });
  });

  it('sends one mail with text and HTML bodies, the link, who it is for, the expiry and the From', async () => {
    const to = 'zoe@example.com';
    await mailer().sendInvitation(invitation(to));

    expect(smtp.messagesTo(to)).toHaveLength(1);
    const [mail] = smtp.messagesTo(to);
    expect(mail.user).toBe('mailer'); // authenticated with the decoded credentials of the URL
    expect(mail.envelopeFrom).toBe('no-reply@ac.example.test');
    const parsed = await mail.parsed();
    expect(parsed.from).toBe(FROM);
    expect(parsed.to).toContain(to);
    expect(parsed.subject).toBe('Your invitation to Access Control');
    expect(parsed.headers['content-type']).toMatch(/^multipart\/alternative/);

    const { text, html } = parsed;
    expect(tokenFromText(text)).toBe(TOKEN);
    expect(tokenFromText(html)).toBe(TOKEN);
    expect(text).toContain(`https://ac.example.test/invitations/accept?token=${TOKEN}`);
    expect(text).toContain(`This invitation is for ${to}.`);
    expect(text).toContain('Hello Zoë <script>alert(1)</script> & Co,');
    expect(text).toContain('expires on Saturday 7 February 2026 at 12:00 UTC');

    expect(html).toContain(`href="https://ac.example.test/invitations/accept?token=${TOKEN}"`);
    expect(html).toContain('Hello Zoë &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co,');
    expect(html).not.toContain('<script>');
    expect(html).toContain(`<strong>${to}</strong>`);
    expect(html).toContain('<time datetime="2026-02-07T12:00:00.000Z">Saturday 7 February 2026 at 12:00 UTC</time>');
  });

  it('escapes an address and a link in the HTML body', async () => {
    const to = 'o.brien&sons@example.com';
    await mailer().sendInvitation(invitation(to, { name: undefined, link: 'https://ac.example.test/invitations/accept?token=a&b="c"' }));
    const mail = await smtp.messagesTo(to)[0]!.parsed();
    expect(mail.text).toMatch(/^Hello,\r?\n\r?\nYou have been invited/);
    expect(mail.html).toContain('<strong>o.brien&amp;sons@example.com</strong>');
    expect(mail.html).toContain('href="https://ac.example.test/invitations/accept?token=a&amp;b=&quot;c&quot;"');
  });

  it('a 4xx answer is a temporary failure, and the next attempt goes through', async () => {
    const to = 'greylisted@example.com';
    const sender = mailer();
    smtp.failNext(1, 451);
    const error = await failureOf(sender.sendInvitation(invitation(to)));
    expect(error.permanent).toBe(false);
    expect(error.message).toContain('451');
    expect(smtp.faults.at(-1)).toEqual({ command: 'MAIL FROM', code: 451 });
    expect(smtp.messagesTo(to)).toHaveLength(0);

    await sender.sendInvitation(invitation(to));
    expect(smtp.messagesTo(to)).toHaveLength(1);
  });

  it('a 5xx answer for the recipient is a permanent failure', async () => {
    const to = 'no-such-user@example.com';
    smtp.rejectRecipient(to, 550);
    const error = await failureOf(mailer().sendInvitation(invitation(to)));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('550');
    expect(error.message).toContain('RCPT TO');
    expect(smtp.messagesTo(to)).toHaveLength(0);
  });

  it('a 5xx answer to DATA is a permanent failure; a 503 (bad sequence) is not', async () => {
    smtp.failNext(1, 554, 'DATA');
    const rejected = await failureOf(mailer().sendInvitation(invitation('data554@example.com')));
    expect(rejected.permanent).toBe(true);
    expect(smtp.faults.at(-1)).toEqual({ command: 'DATA', code: 554 });
    smtp.failNext(1, 503, 'MAIL FROM');
    expect((await failureOf(mailer().sendInvitation(invitation('data503@example.com')))).permanent).toBe(false);
    expect(smtp.messagesTo('data554@example.com')).toHaveLength(0);
  });

  it('a refused connection is a temporary failure whose message holds no password and no token', async () => {
    const port = await closedPort();
    const url = `smtp://mailer:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`;
    const error = await failureOf(mailer(url, { pool: false }).sendInvitation(invitation('nobody@example.com')));
    expect(error.permanent).toBe(false);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.message).not.toContain(PASSWORD);
    expect(error.message).not.toContain(encodeURIComponent(PASSWORD));
    expect(error.message).not.toContain(TOKEN);
    expect(JSON.stringify(error)).not.toContain(PASSWORD);
  });

  it('a greeting refused with a 5xx is a temporary failure (the server, not the message)', async () => {
    smtp.failGreeting(554);
    const error = await failureOf(mailer(smtp.url, { pool: false }).sendInvitation(invitation('greeting@example.com')));
    expect(error.permanent).toBe(false);
    expect(smtp.faults.at(-1)).toEqual({ command: 'GREETING', code: 554 });
  });

  it('a wrong password is a temporary failure (fix the configuration, lose nothing) with no password in it', async () => {
    const wrong = 'Wr0ng-Secret-Value!';
    const url = `smtp://mailer:${encodeURIComponent(wrong)}@127.0.0.1:${smtp.port}`;
    const error = await failureOf(mailer(url).sendInvitation(invitation('auth@example.com')));
    expect(error.permanent).toBe(false);
    expect(error.message).toMatch(/EAUTH/);
    expect(error.message).not.toContain(wrong);
    expect(error.message).not.toContain(PASSWORD);
    expect(smtp.messagesTo('auth@example.com')).toHaveLength(0);
  });

  it('leaves the password out of an error whatever form a server quotes it in (AUTH PLAIN base64, LOGIN base64)', async () => {
    const echoing = await SmtpTestServer.start({ username: 'mailer', password: PASSWORD, echoCredentials: true });
    try {
      const wrong = 'Another-Wr0ng-Secret!';
      const plain = Buffer.from(`\u0000mailer\u0000${wrong}`, 'utf8').toString('base64');
      const error = await failureOf(mailer(`smtp://mailer:${encodeURIComponent(wrong)}@127.0.0.1:${echoing.port}`).sendInvitation(invitation('echo@example.com')));
      expect(error.message).toMatch(/EAUTH/);
      expect(error.message).toContain('[redacted]');
      for (const form of [wrong, plain, Buffer.from(wrong).toString('base64')]) expect(error.message).not.toContain(form);
    } finally {
      await echoing.close();
    }
  });

  it('a server that does not answer in time is a temporary failure', async () => {
    // A TCP listener that never sends the greeting.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const error = await failureOf(
        mailer(`smtp://127.0.0.1:${port}`, { pool: false, greetingTimeoutMs: 300 }).sendInvitation(invitation('slow@example.com')),
      );
      expect(error.permanent).toBe(false);
      expect(error.message).toMatch(/ETIMEDOUT/);
    } finally {
      silent.close();
      // Sockets the mailer opened are closed by its own timeout.
    }
  });
});
