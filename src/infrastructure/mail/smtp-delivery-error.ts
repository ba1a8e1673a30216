import { MailDeliveryError } from '../../application/ports/mailer.port';

/** What nodemailer attaches to the errors it hands back (see nodemailer's NodemailerError). */
interface NodemailerErrorShape {
  message?: string;
  code?: string;
  originalCode?: string;
  command?: string;
  response?: string;
  responseCode?: number;
  rejected?: unknown[];
}

/**
 * A MailDeliveryError from an SMTP exchange, with the SMTP facts a log line may carry. The message
 * is built here from those facts, never copied whole from nodemailer: secrets (the password of
 * SMTP_URL, the invitation token) are scrubbed from the server's reply before it is quoted.
 */
export class SmtpDeliveryError extends MailDeliveryError {
  constructor(
    message: string,
    permanent: boolean,
    readonly code: string | undefined,
    readonly responseCode: number | undefined,
    readonly command: string | undefined,
  ) {
    super(message, permanent);
    this.name = 'SmtpDeliveryError';
  }
}

/**
 * Whether retrying the same message later can help.
 *
 * - permanent: a 5xx reply to the message (MAIL FROM, RCPT TO, DATA), or a recipient refused
 *   before anything was sent (an address nodemailer cannot encode). 503 (bad sequence of
 *   commands) is the exception RFC 5321 and nodemailer make: the session was in the wrong state,
 *   a new connection can succeed.
 * - temporary: every 4xx; no connection (refused, reset, timed out, DNS, TLS); a bad or 5xx
 *   greeting; and failed authentication (EAUTH/ENOAUTH, even with its 535): those are about
 *   the server or our configuration, not this message, so dead-lettering would throw away every
 *   invitation until an operator fixes SMTP_URL; retrying loses nothing.
 */
export function isPermanentSmtpFailure(error: NodemailerErrorShape): boolean {
  const { code, command, responseCode } = error;
  if (code === 'EAUTH' || code === 'ENOAUTH' || code === 'EOAUTH2') return false;
  if (command === 'CONN') return false; // the greeting, or the connection itself
  if (typeof responseCode === 'number') {
    return responseCode >= 500 && responseCode < 600 && responseCode !== 503;
  }
  // No reply code: refused before the wire (nodemailer's own envelope checks).
  if (code === 'EENVELOPE' && (Array.isArray(error.rejected) || /recipient/i.test(error.message ?? ''))) return true;
  return false;
}

/**
 * The SMTP credentials as they travel in AUTH (RFC 4616 PLAIN: base64 of NUL user NUL password; LOGIN: base64 of
 * the password alone) besides the password itself: a server's refusal may quote what it was sent.
 */
export function smtpCredentialForms(auth: { user: string; pass: string } | undefined): string[] {
  if (!auth?.pass) return [];
  const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  return [auth.pass, base64(auth.pass), base64(`\u0000${auth.user}\u0000${auth.pass}`), base64(`${auth.user}\u0000${auth.user}\u0000${auth.pass}`)];
}

/** Removes each secret, raw and URL-encoded, from a text that may quote a server or a URL. */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text.replace(/(\/\/[^/@\s:]*:)[^@\s/]*@/g, '$1***@').replace(/([?&]token=)[^&#\s"'<>]*/gi, '$1[redacted]');
  for (const secret of secrets) {
    if (!secret || secret.length < 3) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) result = result.split(form).join('[redacted]');
  }
  return result;
}

/** The MailDeliveryError for a nodemailer failure: classified, with a message free of secrets. */
export function toMailDeliveryError(error: unknown, secrets: readonly (string | undefined)[]): SmtpDeliveryError {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as NodemailerErrorShape;
  const permanent = isPermanentSmtpFailure(e);
  const facts = [
    e.code,
    e.originalCode && e.originalCode !== e.code ? e.originalCode : undefined,
    e.command ? `at ${e.command}` : undefined,
  ].filter(Boolean);
  // nodemailer appends the server's reply to its message; quote the first line of either, bounded.
  const detail = scrubSecrets(String(e.message ?? 'unknown error').split(/\r?\n/)[0], secrets).slice(0, 300);
  const message = `SMTP delivery failed (${permanent ? 'permanent' : 'temporary'}${facts.length ? `, ${facts.join(' ')}` : ''}): ${detail}`;
  return new SmtpDeliveryError(message, permanent, e.code, e.responseCode, e.command);
}
