import { redactUrl } from '../../../src/infrastructure/logging/logger';

describe('a request URL as a log line shows it', () => {
  it('masks the value of every parameter the routes do not read as a non-secret, by its name as the query parser decodes it', () => {
    expect(redactUrl('/invitations/accept?token=abc123')).toBe('/invitations/accept?token=[redacted]');
    expect(redactUrl('/password-reset?%74oken=abc123&lang=en')).toBe('/password-reset?%74oken=[redacted]&lang=en');
    expect(redactUrl('/x?a=1&TOKEN=s1&Access_Token=s2&pass%77ord=s3&token%5B%5D=s4#frag')).toBe(
      '/x?a=[redacted]&TOKEN=[redacted]&Access_Token=[redacted]&pass%77ord=[redacted]&token%5B%5D=[redacted]#frag',
    );
  });

  it('masks the credentials a client puts in a URL by mistake (review J)', () => {
    expect(redactUrl('/oauth/token?grant_type=client_credentials&client_id=01a2&client_secret=kREuh-723h')).toBe(
      '/oauth/token?grant_type=client_credentials&client_id=01a2&client_secret=[redacted]',
    );
    for (const name of ['refresh_token', 'refreshToken', 'mfa_token', 'current_password', 'new_password', 'client_assertion', 'recovery_code', 'code', 'secret']) {
      expect(redactUrl(`/v1/auth/refresh?${name}=s3cr3t`)).toBe(`/v1/auth/refresh?${name}=[redacted]`);
    }
    expect(redactUrl('/v1/users?eyJhbGciOiJFUzI1NiJ9.e30.c2ln')).toBe('/v1/users?[redacted]');
  });

  it('shows the pages, cursors and filters the routes read, and anything without a query, as they came', () => {
    for (const url of [
      '/v1/users?page=2&page_size=10',
      '/v1/users?role=admin&filter%5Bstatus%5D=active&q=ada&email=a%40b.c&after=01a2',
      '/v1/permissions?filter[group]=users&name=users%3Aread',
      '/v1/audit-events?actor=01a2&target=01a3&action=sign_in&outcome=failure&from=2026-01-01&to=2026-02-01&request_id=r1&cursor=abc&page_size=50',
      '/healthz',
      '/x?',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});
