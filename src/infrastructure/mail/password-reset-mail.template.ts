import escapeHtml from 'escape-html';
import type { PasswordResetMail } from '../../application/ports/mailer.port';
import { formatExpiry } from '../../application/shared/expiry-wording';
import { automatedMessage, type RenderedMail, type TemplateSettings } from './invitation-mail.template';

const DEFAULT_PRODUCT_NAME = 'Access Control';

/** The password-reset mail (issue #10): the single-use link and its expiry, every value escaped in the HTML body. */
export function renderPasswordResetMail(mail: PasswordResetMail, settings: TemplateSettings = {}): RenderedMail {
  const product = settings.productName ?? DEFAULT_PRODUCT_NAME;
  const name = mail.name?.replace(/[\r\n\t]+/g, ' ').trim() || undefined;
  const greeting = name ? `Hello ${name},` : 'Hello,';
  const expiry = formatExpiry(mail.expiresAt);
  const subject = `Reset your ${product} password`;

  const text = [
    greeting,
    '',
    `Someone asked to reset the ${product} password of ${mail.to}.`,
    '',
    'To choose a new password, open this link:',
    '',
    mail.link,
    '',
    `The link works once and expires on ${expiry}. A newer request replaces it.`,
    'If you did not ask for this, you can ignore this message: your password stays as it is.',
    '',
  ].join('\n');

  const e = escapeHtml;
  const html = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${e(subject)}</title></head>
<body style="font-family: sans-serif; line-height: 1.5;">
<p>${e(greeting)}</p>
<p>Someone asked to reset the ${e(product)} password of <strong>${e(mail.to)}</strong>.</p>
<p>To choose a new password, open this link:</p>
<p><a href="${e(mail.link)}">Choose a new password</a></p>
<p style="font-size: smaller;">If the button does not work, copy this address into your browser:<br>${e(mail.link)}</p>
<p>The link works once and expires on <time datetime="${e(mail.expiresAt.toISOString())}">${e(expiry)}</time>. A newer request replaces it.</p>
<p>If you did not ask for this, you can ignore this message: your password stays as it is.</p>
</body>
</html>
`;
  return { subject, text, html };
}

/** The nodemailer message of a password-reset mail, the same whichever transport carries it. */
export function passwordResetMessage(mail: PasswordResetMail, from: string, settings: TemplateSettings = {}) {
  return automatedMessage(renderPasswordResetMail(mail, settings), { to: mail.to, name: mail.name }, from);
}
