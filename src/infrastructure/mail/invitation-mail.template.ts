import escapeHtml from 'escape-html';
import type { InvitationMail } from '../../application/ports/mailer.port';
import { formatExpiry } from '../../application/shared/expiry-wording';

/** One invitation mail, both bodies rendered from the same data so they never disagree. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export interface TemplateSettings {
  /** How the service names itself to the invitee. */
  productName?: string;
}

const DEFAULT_PRODUCT_NAME = 'Access Control';

/**
 * The invitation mail: who it is for, the single-use link and when it expires. The name and
 * address come from the inviter, so every value is escaped in the HTML body; the plain-text
 * body needs no escaping. Line breaks in a name are flattened so it cannot forge lines.
 */
export function renderInvitationMail(mail: InvitationMail, settings: TemplateSettings = {}): RenderedMail {
  const product = settings.productName ?? DEFAULT_PRODUCT_NAME;
  const name = mail.name?.replace(/[\r\n\t]+/g, ' ').trim() || undefined;
  const greeting = name ? `Hello ${name},` : 'Hello,';
  const expiry = formatExpiry(mail.expiresAt);

  const text = [
    greeting,
    '',
    `You have been invited to ${product}. This invitation is for ${mail.to}.`,
    '',
    'To accept it, open this link and choose a username and a password:',
    '',
    mail.link,
    '',
    `The link works once and expires on ${expiry}.`,
    'If you did not expect this invitation, you can ignore this message.',
    '',
  ].join('\n');

  const e = escapeHtml;
  const html = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${e(`Your invitation to ${product}`)}</title></head>
<body style="font-family: sans-serif; line-height: 1.5;">
<p>${e(greeting)}</p>
<p>You have been invited to ${e(product)}. This invitation is for <strong>${e(mail.to)}</strong>.</p>
<p>To accept it, open this link and choose a username and a password:</p>
<p><a href="${e(mail.link)}">Accept the invitation</a></p>
<p style="font-size: smaller;">If the button does not work, copy this address into your browser:<br>${e(mail.link)}</p>
<p>The link works once and expires on <time datetime="${e(mail.expiresAt.toISOString())}">${e(expiry)}</time>.</p>
<p>If you did not expect this invitation, you can ignore this message.</p>
</body>
</html>
`;

  return { subject: `Your invitation to ${product}`, text, html };
}

/** The nodemailer message of an invitation, the same whichever transport carries it. */
export function invitationMessage(mail: InvitationMail, from: string, settings: TemplateSettings = {}) {
  return automatedMessage(renderInvitationMail(mail, settings), { to: mail.to, name: mail.name }, from);
}

/** A rendered mail as a nodemailer message to one person, marked as sent by a machine. */
export function automatedMessage(rendered: RenderedMail, recipient: { to: string; name?: string | null }, from: string) {
  return {
    from,
    to: recipient.name ? { name: recipient.name, address: recipient.to } : recipient.to,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
    // An automated mail (RFC 3834): no out-of-office or vacation replies back to MAIL_FROM.
    headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
  };
}
