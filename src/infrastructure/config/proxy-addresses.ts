import { isIP } from 'node:net';

/** The names proxy-addr (fastify's trustProxy) reads as ranges. */
export const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * Whether fastify's trustProxy (proxy-addr) takes `entry`: a keyword, an IPv4 or IPv6 address, either with a
 * prefix length (1–32, 1–128), or an IPv4 address with a contiguous netmask. proxy-addr throws a TypeError at
 * start on anything else; checked here, the start stops with a message naming TRUSTED_PROXIES instead.
 * A zone (`fe80::1%eth0`) is refused: it names an interface of one machine, not a proxy.
 */
export function isProxyAddress(entry: string): boolean {
  if (PROXY_KEYWORDS.includes(entry)) return true;
  const [address = '', range, ...rest] = entry.split('/');
  const family = address.includes('%') || rest.length > 0 ? 0 : isIP(address);
  if (family === 0) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) >= 1 && Number(range) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(range) === 4 && isNetmask(range);
}

/** A mask of 1 to 32 leading ones and nothing after them (255.255.0.0, not 255.0.255.0 or 0.0.0.0). */
function isNetmask(mask: string): boolean {
  const bits = mask.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
  const zeros = 2 ** 32 - 1 - bits;
  return bits > 0 && (zeros & (zeros + 1)) === 0;
}
