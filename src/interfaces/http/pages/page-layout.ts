import { createHash } from 'node:crypto';
import escapeHtml from 'escape-html';
import { formatExpiry } from '../../../application/shared/expiry-wording';

/** The look of the pages a person meets (the invitation and the password-reset pages): one style, one frame. */
const STYLE = `
  body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1f2328; }
  h1 { font-size: 1.4rem; }
  label { display: block; margin-top: 1rem; font-weight: 600; }
  input { width: 100%; padding: .5rem; margin-top: .25rem; box-sizing: border-box; font-size: 1rem; }
  input[aria-invalid="true"] { border: 2px solid #b42318; }
  button { margin-top: 1.5rem; padding: .6rem 1.2rem; font-size: 1rem; cursor: pointer; }
  .hint { color: #59636e; font-size: .85rem; }
  .error { color: #b42318; }
  .field-error { margin: .25rem 0 0; font-weight: 600; }
  .ok { color: #1a7f37; }
`;

/**
 * The policy of these pages, stricter than the API's (helmet's defaults): nothing but their own scripts, their one
 * style block (by its hash: no other inline style), their own origin to post and fetch to, no `<base>`, no frame
 * around them, as the console's (CONSOLE_CSP). Should markup ever slip into a page, it could neither run, restyle the
 * page to read its token out, nor post the form elsewhere.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** A whole page: no referrer (the link's token is in its URL), not indexed. */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>`;
}

/** The expiry in the words the invitation mail uses, with the exact instant for machines. */
export function expiryTime(expiresAt: Date): string {
  return `<time datetime="${escapeHtml(expiresAt.toISOString())}">${escapeHtml(formatExpiry(expiresAt))}</time>`;
}

/**
 * The path PUBLIC_URL puts before every route ('' at the root; "/auth" for https://example.com/auth, which a proxy
 * strips). A page's form and script post to it from the origin's root, so a link opened with a trailing slash
 * ("/invitations/accept/?token=…", which the router serves too) posts where a relative path would not.
 */
export function basePathOf(publicUrl: string): string {
  return new URL(publicUrl).pathname.replace(/\/+$/, '');
}
