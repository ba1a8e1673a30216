import { loadConfig } from '../../../src/infrastructure/config/config';
import { listenProblem } from '../../../src/infrastructure/config/listen-problems';
import { problemsOf } from '../../support/config-problems';

/** Values an operator got wrong that used to start a service failing later (review K, 2026-12-06). */
describe('settings refused at start instead of failing later', () => {
  it('MFA_REQUIRED_PERMISSIONS takes every permission of the catalogue, and refuses a misspelt one that would switch the policy off', () => {
    expect(loadConfig({ MFA_REQUIRED_PERMISSIONS: 'service-accounts:write,roles:write,users:delete' }).mfaRequiredPermissions).toEqual([
      'service-accounts:write',
      'roles:write',
      'users:delete',
    ]);
    const problems = problemsOf({ MFA_REQUIRED_PERMISSIONS: 'roles:write,users:delte' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^MFA_REQUIRED_PERMISSIONS must be .*; not one: "users:delte"$/);
  });

  it('RESOURCE_SERVERS takes absolute URIs as written (a URL, a URN), and refuses a bare name or a fragment that no token could match', () => {
    expect(loadConfig({ RESOURCE_SERVERS: ' https://orders.example.com , urn:example:billing,https://api.example.com/v2/' }).jwt.resources).toEqual([
      'https://orders.example.com',
      'urn:example:billing',
      'https://api.example.com/v2/',
    ]);
    expect(loadConfig({}).jwt.resources).toEqual([]);
    expect(problemsOf({ RESOURCE_SERVERS: 'https://orders.example.com,orders,https://x.example.com/#a' })).toEqual([
      'RESOURCE_SERVERS must be a comma-separated list of absolute URIs without a fragment, such as https://orders.example.com (bad: "orders,https://x.example.com/#a")',
    ]);
  });

  it('PUBLIC_URL refuses a user or password without repeating it, and a query or a fragment the paths would land after', () => {
    const credentials = problemsOf({ PUBLIC_URL: 'http://user:s3cretpw@auth.example.com/' });
    expect(credentials).toEqual(['PUBLIC_URL must not carry a user or password: it is the issuer every token and the discovery document name']);
    for (const url of ['https://auth.example.com/?x=1', 'https://auth.example.com/#frag', 'https://auth.example.com/base?']) {
      expect(problemsOf({ PUBLIC_URL: url })).toEqual([`PUBLIC_URL must have no query or fragment: paths are appended to it (got "${url}")`]);
    }
    expect(loadConfig({ PUBLIC_URL: 'https://example.com/auth/' }).publicUrl).toBe('https://example.com/auth');
    // Refused for another reason, its user and password are not repeated either.
    for (const url of ['ftp://u:s3cret@h.example', 'https://u:s3cret@h.example:99999']) {
      expect(problemsOf({ PUBLIC_URL: url })).toEqual([`PUBLIC_URL must be an http(s) URL (got "${url.replace('u:s3cret@', '***@')}")`]);
    }
  });

  it('SMTP_URL refuses a URL with no host, without repeating its password', () => {
    const problems = problemsOf({ SMTP_URL: 'smtp://u:hunter2pw@' });
    expect(problems).toEqual(['SMTP_URL must look like smtp://user:pass@host:port or smtps://…']);
    expect(problemsOf({ SMTP_URL: 'smtps://u:p@mail.example.com:465' })).toEqual([]);
  });

  it('MAIL_FROM is an address, or a name and an address in <>', () => {
    for (const good of ['no-reply@example.com', 'Access Control <no-reply@example.com>', '"Ops, Inc." <ops@mail.example.com>', 'no-reply@example.com (Access Control)', '"Dept <IT>" <it@example.com>', 'ops@[192.0.2.1]']) {
      expect(problemsOf({ MAIL_FROM: good })).toEqual([]);
    }
    for (const bad of ['not an address', 'Access Control', 'no-reply@', 'a@b@c', 'Name <not an address>', 'a@example.com, b@example.com']) {
      expect(problemsOf({ MAIL_FROM: bad })).toEqual([expect.stringMatching(/^MAIL_FROM must be an e-mail address/)]);
    }
  });

  it('HOST that no resolver knows is told as a configuration problem naming HOST, not a stack', () => {
    const told = listenProblem(Object.assign(new Error('getaddrinfo ENOTFOUND nohost.invalid'), { code: 'ENOTFOUND' }), 'PORT', 3000, 'nohost.invalid');
    expect((told as { problems?: string[] }).problems).toEqual([
      'HOST: nohost.invalid is neither an address nor a name this machine resolves; 0.0.0.0 listens on all of them',
    ]);
  });
});
