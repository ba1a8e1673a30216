import { redactUrl } from '../../../src/infrastructure/logging/logger';

describe('a request URL as a log line shows it', () => {
  it('masks every secret parameter, by its name as the query parser decodes it', () => {
    expect(redactUrl('/invitations/accept?token=abc123')).toBe('/invitations/accept?token=[redacted]');
    expect(redactUrl('/password-reset?%74oken=abc123&lang=en')).toBe('/password-reset?%74oken=[redacted]&lang=en');
    expect(redactUrl('/x?a=1&TOKEN=s1&Access_Token=s2&pass%77ord=s3&token%5B%5D=s4#frag')).toBe(
      '/x?a=1&TOKEN=[redacted]&Access_Token=[redacted]&pass%77ord=[redacted]&token%5B%5D=[redacted]#frag',
    );
  });

  it('leaves everything else as it came, a malformed escape included', () => {
    for (const url of ['/v1/users?page=2&page_size=10', '/healthz', '/x?tokens=1&my_token=2', '/x?%E0%A4%A=1', '/x?token', '/x?']) expect(redactUrl(url)).toBe(url);
  });
});
