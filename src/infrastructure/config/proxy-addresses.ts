import { BlockList, isIP } from 'node:net';

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

/** proxy-addr's keywords as the ranges it reads them as. */
const KEYWORD_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * Whether a socket's address is one of TRUSTED_PROXIES (entries isProxyAddress takes), as fastify's trustProxy reads
 * the list; an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) as its IPv4 one.
 */
export function proxyAddressMatcher(entries: readonly string[]): (address: string) => boolean {
  const trusted = new BlockList();
  for (const entry of entries.flatMap((e) => KEYWORD_RANGES[e] ?? [e])) {
    const [address = '', range] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (range === undefined) trusted.addAddress(address, family);
    else trusted.addSubnet(address, isIP(range) === 4 ? prefixOf(range) : Number(range), family);
  }
  return (address) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const plain = mapped ?? address;
    return trusted.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
  };
}

/** A contiguous netmask's prefix length (255.255.0.0 → 16). */
const prefixOf = (mask: string): number =>
  mask.split('.').reduce((bits, octet) => bits + Number(octet).toString(2).replace(/0/g, '').length, 0);
