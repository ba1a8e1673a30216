import { loadConfig } from '../../../src/infrastructure/config/config';
import { proxyAddressMatcher } from '../../../src/infrastructure/config/proxy-addresses';
import { openFileLimit } from '../../../src/infrastructure/system/open-file-limit';
import { connectionCap, RESERVED_FILES } from '../../../src/interfaces/http/plugins/connection-limits';

describe('connection limits', () => {
  it('matches TRUSTED_PROXIES as fastify reads them: addresses, prefixes, netmasks, keywords, IPv4-mapped IPv6', () => {
    const trusted = proxyAddressMatcher(['10.1.0.0/16', '192.0.2.7', '198.51.100.0/255.255.255.0', 'fd00::/8', 'loopback']);
    for (const address of ['10.1.2.3', '::ffff:10.1.2.3', '192.0.2.7', '198.51.100.9', 'fd12::1', '127.0.0.5', '::1']) expect(trusted(address)).toBe(true);
    for (const address of ['10.2.0.1', '192.0.2.8', '198.51.101.1', 'fe80::1', '203.0.113.1']) expect(trusted(address)).toBe(false);
    expect(proxyAddressMatcher([])('127.0.0.1')).toBe(false);
  });

  it('keeps the listener’s cap below the open-file limit', () => {
    expect(connectionCap(10_000, 20_000)).toBe(10_000);
    expect(connectionCap(10_000, 1_024)).toBe(1_024 - RESERVED_FILES);
    expect(connectionCap(10_000, undefined)).toBe(10_000);
    expect(openFileLimit('/nonexistent')).toBeUndefined();
  });

  it('refuses a HEADERS_TIMEOUT longer than REQUEST_TIMEOUT', () => {
    expect(() => loadConfig({ REQUEST_TIMEOUT: '5s', HEADERS_TIMEOUT: '10s' })).toThrow(/HEADERS_TIMEOUT must not be longer than REQUEST_TIMEOUT/);
    expect(loadConfig({}).requestTimeoutSeconds).toBe(30);
  });
});
