import { securityHeaders } from '../../../src/interfaces/http/plugins/security-headers';

describe('security headers', () => {
  it('asks browsers for https (HSTS, upgrade-insecure-requests) only when the public URL is https', () => {
    const secure = securityHeaders({ publicUrl: 'https://auth.example.com' });
    expect(secure['strict-transport-security']).toMatch(/^max-age=\d+; includeSubDomains$/);
    expect(secure['content-security-policy']).toContain('upgrade-insecure-requests');
    // Over plain HTTP on a LAN address the upgrade sent the pages' own scripts to https://, where nothing answers.
    const plain = securityHeaders({ publicUrl: 'http://192.0.2.2:3000' });
    expect(plain['strict-transport-security']).toBeUndefined();
    expect(plain['content-security-policy']).not.toContain('upgrade-insecure-requests');
    // Everything else is the same policy either way.
    expect(plain['content-security-policy']).toBe(secure['content-security-policy']!.replace(/;?upgrade-insecure-requests/, ''));
    const { 'strict-transport-security': _, 'content-security-policy': __, ...rest } = secure;
    const { 'content-security-policy': ___, ...plainRest } = plain;
    expect(plainRest).toEqual(rest);
    expect(plain['x-content-type-options']).toBe('nosniff');
  });
});
