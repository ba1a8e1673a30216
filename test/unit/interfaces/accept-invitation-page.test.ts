import { formatExpiry } from '../../../src/application/shared/expiry-wording';
import { renderInvitationMail } from '../../../src/infrastructure/mail/invitation-mail.template';
import { basePathOf } from '../../../src/interfaces/http/pages/page-layout';
import { renderAcceptInvitationPage, renderJoinedPage } from '../../../src/interfaces/http/pages/accept-invitation.page';

const EXPIRES = new Date('2026-02-07T12:00:00.000Z');
const valid = { status: 'valid' as const, email: 'grace@example.com', name: 'Grace Hopper', expiresAt: EXPIRES };

describe('the expiry in words', () => {
  it('names the weekday, date, time and zone', () => {
    expect(formatExpiry(EXPIRES)).toBe('Saturday 7 February 2026 at 12:00 UTC');
    expect(formatExpiry(new Date('2026-12-31T23:59:59.999Z'))).toBe('Thursday 31 December 2026 at 23:59 UTC');
  });

  it('reads the same on the page as in the mail', () => {
    const words = formatExpiry(EXPIRES);
    const mail = renderInvitationMail({ to: valid.email, name: valid.name, link: 'https://x.test/a?token=t', expiresAt: EXPIRES });
    const page = renderAcceptInvitationPage(valid, 't').html;

    expect(mail.text).toContain(`expires on ${words}.`);
    expect(page).toContain(`expires on <time datetime="2026-02-07T12:00:00.000Z">${words}</time>.`);
    expect(page).not.toContain('This link expires on 2026-');
  });

  it('says when an expired link expired, in the same words', () => {
    const { status, html } = renderAcceptInvitationPage({ ...valid, status: 'expired' }, 't');

    expect(status).toBe(410);
    expect(html).toContain(`It expired on <time datetime="2026-02-07T12:00:00.000Z">Saturday 7 February 2026 at 12:00 UTC</time>.`);
  });
});

describe('the form', () => {
  const html = renderAcceptInvitationPage(valid, 'secret-token').html;

  it('has one empty, hidden error place per field, next to it, for the script to fill', () => {
    for (const field of ['name', 'username', 'password']) {
      const places = html.match(new RegExp(`<p id="${field}-error"[^>]*>`, 'g')) ?? [];
      expect({ field, places }).toEqual({ field, places: [`<p id="${field}-error" class="error field-error" data-field-error="${field}" hidden>`] });
      expect(html).toContain(`<p id="${field}-error" class="error field-error" data-field-error="${field}" hidden></p>\n  <input id="${field}"`);
    }
  });

  it('describes each input by hints that exist', () => {
    const described = [...html.matchAll(/aria-describedby="([^"]+)"/g)].flatMap((m) => m[1]!.split(' '));
    expect(described).toEqual(['username-hint', 'password-hint']);
    for (const id of described) expect(html).toContain(`id="${id}"`);
  });

  it('posts itself, the token in a hidden field, so a browser without the script joins and puts nothing secret in a URL', () => {
    // From the root, so a link opened with a trailing slash posts where one without does.
    expect(html).toMatch(/<form id="accept" method="post" action="\/invitations\/accept" data-api="\/v1\/invitations\/accept"/);
    expect(html).toContain('<input type="hidden" name="token" value="secret-token">');
    expect(html).not.toContain('<noscript>');
  });
});

describe('the form again after a refused post (no script)', () => {
  const refused = {
    status: 400,
    code: 'VALIDATION_FAILED',
    name: 'Grace <b>Hopper</b>',
    username: 'grace"x',
    fieldErrors: { password: 'Password must be 12 to 128 characters long' },
    summary: '',
  };
  const { status, html } = renderAcceptInvitationPage(valid, 'secret-token', { appUrl: null, basePath: '' }, refused);

  it('has the refusal’s status and says the problem at its field, as the script would', () => {
    expect(status).toBe(400);
    expect(html).toContain('<p id="password-error" class="error field-error" data-field-error="password">Password must be 12 to 128 characters long</p>');
    expect(html).toMatch(/<input id="password" name="password" [^>]* aria-invalid="true" aria-describedby="password-error password-hint" autofocus>/);
    expect(html).toContain('<p id="username-error" class="error field-error" data-field-error="username" hidden></p>');
    expect(html).toContain('<p id="result" role="status" aria-live="polite" class="error" data-outcome="VALIDATION_FAILED"></p>');
  });

  it('keeps the entered name and username, escaped, and never a password', () => {
    expect(html).toContain('value="Grace &lt;b&gt;Hopper&lt;/b&gt;"');
    expect(html).toContain('value="grace&quot;x"');
    expect(html).not.toMatch(/id="password"[^>]*value=/);
  });
});

describe('once joined without the script', () => {
  it('says so and shows the next step at once', () => {
    const { status, html } = renderJoinedPage('grace<', { appUrl: 'https://app.example.com/', basePath: '' });
    expect(status).toBe(200);
    expect(html).toContain('<p id="result" role="status" class="ok" data-outcome="joined">You have joined as grace&lt;.</p>');
    expect(html).toContain('<section id="next">');
    expect(html).toContain('<a id="app-link" href="https://app.example.com/">go to the application</a>');
    expect(html).not.toContain('<form');
  });
});

describe('after joining', () => {
  it('links to APP_URL when it is set', () => {
    const html = renderAcceptInvitationPage(valid, 't', { appUrl: 'https://app.example.com/start?a=1&b=2', basePath: '' }).html;

    expect(html).toContain('<a id="app-link" href="https://app.example.com/start?a=1&amp;b=2">go to the application</a>');
    expect(html).toMatch(/<section id="next" hidden>/);
  });

  it('says to sign in to the application when APP_URL is not set, and links nowhere', () => {
    const html = renderAcceptInvitationPage(valid, 't', { appUrl: null, basePath: '' }).html;

    expect(html).toContain('Next: sign in to the application you were invited to, with your username and password.');
    expect(html).not.toContain('id="app-link"');
  });
});

describe('under a path (PUBLIC_URL https://example.com/auth, the proxy strips /auth)', () => {
  it('posts the form and its script under that path', () => {
    const { html } = renderAcceptInvitationPage(valid, 'secret-token', { appUrl: null, basePath: basePathOf('https://example.com/auth') });
    expect(html).toMatch(/<form id="accept" method="post" action="\/auth\/invitations\/accept" data-api="\/auth\/v1\/invitations\/accept"/);
    expect(html).toContain('<script src="/auth/invitations/accept.js" defer></script>');
  });

  it.each([
    ['https://example.com', ''],
    ['http://localhost:3000', ''],
    ['https://example.com/auth', '/auth'],
    ['https://example.com/a/b/', '/a/b'],
  ])('reads the path of %s as "%s"', (url, path) => {
    expect(basePathOf(url)).toBe(path);
  });
});

describe('escaping', () => {
  it('escapes every value from the invitation, the link and the configuration', () => {
    const evil = '"><script>alert(1)</script>';
    const { html } = renderAcceptInvitationPage({ ...valid, email: `x${evil}@example.com`, name: evil }, `t${evil}`, {
      appUrl: `https://app.example.com/${evil}`,
      basePath: `/p${evil}`,
    });

    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html.match(/<script/g)).toEqual(['<script']);
    expect(html).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
