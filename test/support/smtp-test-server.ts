/**
 * A real SMTP server inside the test process (`smtp-server`), for the mail adapter and the
 * mailer worker tests. It records every message it accepts and can be told to misbehave:
 *
 *  - `failNext(n, code, command?)`: answer the next n commands (MAIL FROM, RCPT TO, DATA, or only
 *    the one named) with that code (a 4xx by default);
 *  - `rejectRecipient(address, code)`: answer RCPT TO for that address with a 5xx, always;
 *  - `refuseRandomly(fraction, code)`: answer that fraction of commands with a 4xx, at random;
 *  - `failGreeting(code)`: refuse every new connection at the greeting;
 *  - `setLatency(ms)`: wait before accepting each message (to catch a sender mid-burst).
 *
 * A refused command means the message was not accepted, so it is not recorded.
 */
import { type AddressObject, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

/** A message as mailparser reads it, in the few fields the tests look at. */
export interface ParsedMail {
  /** Header names lower-cased; the first occurrence as written, unfolded (RFC 2047 words left encoded). */
  headers: Record<string, string>;
  /** Decoded. */
  subject?: string;
  /** Each address as `Name <address>`, or the bare address, joined by ', '. */
  from?: string;
  to?: string;
  /** The bodies decoded (line ends as mailparser gives them: LF). */
  text?: string;
  html?: string;
}

export interface ReceivedMail {
  /** Envelope sender and recipients, as given in MAIL FROM and RCPT TO. */
  envelopeFrom: string;
  envelopeTo: string[];
  /** The authenticated user of the session, if any. */
  user?: string;
  raw: string;
  /** The message parsed, on the first call (the benchmark receives thousands of mails and reads none of them). */
  parsed(): Promise<ParsedMail>;
  receivedAt: Date;
}

export interface SmtpTestServerOptions {
  /** When set, AUTH is required with these credentials. */
  username?: string;
  password?: string;
  /** Random source for refuseRandomly (default Math.random). */
  random?: () => number;
  /** A refused AUTH quotes what it was sent (the PLAIN string), as a careless server's 535 may. */
  echoCredentials?: boolean;
}

export type Command = 'MAIL FROM' | 'RCPT TO' | 'DATA';

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

export class SmtpTestServer {
  readonly messages: ReceivedMail[] = [];
  /** Every command answered with an injected fault, in order. */
  readonly faults: { command: Command | 'GREETING'; code: number }[] = [];
  private failNextCount = 0;
  private failNextCode = 451;
  private failNextCommand: Command | undefined;
  private readonly rejected = new Map<string, number>();
  private refuseFraction = 0;
  private refuseCode = 451;
  private greetingCode: number | null = null;
  private latencyMs = 0;
  private dataInFlight = 0;
  /** The most DATA commands this server was answering at once (see `resetPeak`). */
  peakDataInFlight = 0;
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
    private readonly options: SmtpTestServerOptions,
  ) {}

  static async start(options: SmtpTestServerOptions = {}): Promise<SmtpTestServer> {
    const requireAuth = options.username !== undefined;
    // eslint-disable-next-line prefer-const
    let self: SmtpTestServer | undefined;
    const server = new SMTPServer({
      logger: false,
      disabledCommands: requireAuth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      authOptional: !requireAuth,
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      closeTimeout: 200,
      onAuth(auth, _session, callback) {
        if (auth.username === options.username && auth.password === options.password) {
          callback(null, { user: auth.username });
        } else {
          const sent = Buffer.from(`\u0000${auth.username}\u0000${auth.password ?? ''}`, 'utf8').toString('base64');
          callback(smtpError(535, options.echoCredentials ? `Authentication credentials invalid: ${sent}` : 'Authentication credentials invalid'));
        }
      },
      onConnect(_session, callback) {
        const code = self?.greetingCode;
        if (code) {
          self?.faults.push({ command: 'GREETING', code });
          callback(smtpError(code, 'Service not available, closing transmission channel'));
        } else {
          callback();
        }
      },
      onMailFrom(_address: SMTPServerAddress, _session: SMTPServerSession, callback) {
        callback(self?.fault('MAIL FROM') ?? null);
      },
      onRcptTo(address: SMTPServerAddress, _session: SMTPServerSession, callback) {
        callback(self?.fault('RCPT TO', address.address) ?? null);
      },
      onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          self?.enterData();
          const answer = () => {
            self?.leaveData();
            const error = self?.fault('DATA');
            if (error) return callback(error);
            self?.record(Buffer.concat(chunks).toString('utf8'), session);
            callback(null);
          };
          if (self && self.latencyMs > 0) setTimeout(answer, self.latencyMs);
          else answer();
        });
      },
    });
    server.on('error', () => undefined); // a client resetting its socket is not a test failure
    const port = await new Promise<number>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
    self = new SmtpTestServer(server, port, options);
    return self;
  }

  /** `smtp://user:pass@127.0.0.1:port` (credentials percent-encoded), or without credentials. */
  get url(): string {
    const { username, password } = this.options;
    const auth = username !== undefined ? `${encodeURIComponent(username)}:${encodeURIComponent(password ?? '')}@` : '';
    return `smtp://${auth}127.0.0.1:${this.port}`;
  }

  failNext(count: number, code = 451, command?: Command): void {
    this.failNextCount = count;
    this.failNextCode = code;
    this.failNextCommand = command;
  }

  rejectRecipient(address: string, code = 550): void {
    this.rejected.set(address.toLowerCase(), code);
  }

  refuseRandomly(fraction: number, code = 451): void {
    this.refuseFraction = fraction;
    this.refuseCode = code;
  }

  failGreeting(code: number | null): void {
    this.greetingCode = code;
  }

  resetPeak(): void {
    this.peakDataInFlight = this.dataInFlight;
  }

  private enterData(): void {
    this.dataInFlight++;
    this.peakDataInFlight = Math.max(this.peakDataInFlight, this.dataInFlight);
  }

  private leaveData(): void {
    this.dataInFlight--;
  }

  setLatency(ms: number): void {
    this.latencyMs = ms;
  }

  /** Back to a well-behaved server; recorded messages are kept. */
  clearFaults(): void {
    this.failNextCount = 0;
    this.rejected.clear();
    this.refuseFraction = 0;
    this.greetingCode = null;
    this.latencyMs = 0;
  }

  messagesTo(address: string): ReceivedMail[] {
    const wanted = address.toLowerCase();
    return this.messages.filter((m) => m.envelopeTo.some((to) => to.toLowerCase() === wanted));
  }

  /** Resolves once `predicate` holds for the recorded messages; rejects after `timeoutMs`. */
  async waitFor(predicate: (messages: readonly ReceivedMail[]) => boolean, timeoutMs = 20_000, what = 'messages'): Promise<void> {
    if (predicate(this.messages)) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!predicate(this.messages)) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        reject(new Error(`SMTP test server: still waiting for ${what} after ${timeoutMs} ms (${this.messages.length} recorded)`));
      }, timeoutMs);
      this.waiters.push(check);
    });
  }

  async waitForMessages(count: number, timeoutMs = 20_000): Promise<ReceivedMail[]> {
    await this.waitFor((messages) => messages.length >= count, timeoutMs, `${count} messages`);
    return this.messages.slice(0, count);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private fault(command: Command, recipient?: string): Error | null {
    if (this.failNextCount > 0 && (this.failNextCommand === undefined || this.failNextCommand === command)) {
      this.failNextCount--;
      this.faults.push({ command, code: this.failNextCode });
      return smtpError(this.failNextCode, 'Requested action aborted: try again later');
    }
    const rejectedCode = recipient === undefined ? undefined : this.rejected.get(recipient.toLowerCase());
    if (rejectedCode !== undefined) {
      this.faults.push({ command, code: rejectedCode });
      return smtpError(rejectedCode, 'Mailbox unavailable');
    }
    if (this.refuseFraction > 0 && (this.options.random ?? Math.random)() < this.refuseFraction) {
      this.faults.push({ command, code: this.refuseCode });
      return smtpError(this.refuseCode, 'Greylisted, try again later');
    }
    return null;
  }

  private record(raw: string, session: SMTPServerSession): void {
    const from = session.envelope.mailFrom;
    let parsed: Promise<ParsedMail> | undefined;
    this.messages.push({
      envelopeFrom: from ? from.address : '',
      envelopeTo: session.envelope.rcptTo.map((r) => r.address),
      user: typeof session.user === 'string' ? session.user : undefined,
      raw,
      parsed: () => (parsed ??= parseMail(raw)),
      receivedAt: new Date(),
    });
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** Reads a message (from the SMTP server or an .eml file) with mailparser. */
export async function parseMail(raw: string): Promise<ParsedMail> {
  const mail = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
  const headers: Record<string, string> = {};
  for (const { key, line } of mail.headerLines) {
    if (!(key in headers)) headers[key] = line.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim();
  }
  return {
    headers,
    subject: mail.subject,
    from: addresses(mail.from),
    to: addresses(mail.to),
    text: mail.text,
    html: mail.html === false ? undefined : mail.html,
  };
}

/** `Name <address>` or the bare address, as written, without the quotes mailparser's `text` adds. */
function addresses(header: AddressObject | AddressObject[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  return (Array.isArray(header) ? header : [header])
    .flatMap((h) => h.value)
    .map(({ name, address }) => (name ? `${name} <${address ?? ''}>` : (address ?? '')))
    .join(', ');
}

/** The invitation token of the first accept link in a text, percent-decoded. */
export function tokenFromText(text: string | undefined): string | undefined {
  const match = /\/invitations\/accept\?token=([^\s"'<>&]+)/.exec(text ?? '');
  return match ? decodeURIComponent(match[1]) : undefined;
}
