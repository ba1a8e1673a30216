import { ValidationError } from '../shared/domain-error';
import { comparisonKey, hasInvisibleCharacters } from './comparison-key';

const MAX_LENGTH = 254;
/** Octets of the local part in UTF-8 (RFC 5321 §4.5.3.1.1, RFC 6531 §3.3): 64 ASCII characters, fewer of others. */
const MAX_LOCAL_LENGTH = 64;
const MAX_LABEL_LENGTH = 63;
const MAX_DOMAIN_LENGTH = 253;
const utf8 = new TextEncoder();
// Pragmatic rather than RFC 5322: one @, no white space or control characters,
// a domain of dot-separated labels with a top-level part. Quoted local parts are refused. The blank Braille cell
// (U+2800) is no white space to Unicode but shows as one, so `ada⠀lovelace@…` would read as an address with a space.
const LOCAL = /^[^\s@"(),:;<>[\\\]\p{Cc}\u2800]+$/u;
const LABEL = /^(?!-)[\p{L}\p{N}-]{1,63}(?<!-)$/u;

// A domain as DNS and mail servers read it is the same in any of its spellings: case, full-width letters,
// and the ASCII form (`xn--…`) of an internationalised label.
const ASCII_DOMAIN = /^[a-z0-9.-]*$/;
const ACE_LABEL = /(^|\.)xn--/;
const MAPPABLE_DOMAIN = /^[\p{L}\p{M}\p{N}.-]+$/u;

/**
 * The key of a domain, or null when it is no domain once mapped. An ASCII domain with no `xn--` label is its
 * lower-case form. Any other is mapped as DNS resolves it, by UTS #46 (the WHATWG URL host parser, which browsers
 * and Node share) to its ASCII form: `ｅｘａｍｐｌｅ.com`, `EXAMPLE.com` and `example.com` are one key, and so are
 * `bücher.de` and `xn--bcher-kva.de`. The mapping must keep the labels as they are counted (no dot gained or lost,
 * no IPv4 address read out of numbers).
 */
function mappedDomainKey(domain: string): string | null {
  const lower = comparisonKey(domain);
  if (ASCII_DOMAIN.test(lower) && !ACE_LABEL.test(lower)) return lower;
  if (!MAPPABLE_DOMAIN.test(domain)) return null;
  let host: string;
  try {
    host = new URL(`http://${domain}/`).hostname;
  } catch {
    return null;
  }
  // The ASCII form is what DNS carries: each label at most 63 octets, the name at most 253 (RFC 1035 §2.3.4).
  const labels = host.split('.');
  const fits = host.length <= MAX_DOMAIN_LENGTH && labels.every((label) => label.length <= MAX_LABEL_LENGTH);
  return ASCII_DOMAIN.test(host) && labels.length === domain.split('.').length && fits ? host : null;
}

// A last label a URL reads as a number (decimal, or hexadecimal after 0x): the name is an IPv4 address, not a domain
// (no top-level domain is numeric, RFC 3696), and its spellings (0x7f.0.0.1, full-width digits) would be many keys.
const NUMERIC_LABEL = /(^|\.)(0x[0-9a-f]*|[0-9]+)$/;

/** `mappedDomainKey` unless the domain is an IPv4 address in any of its spellings: then null. */
function domainKey(domain: string): string | null {
  const key = mappedDomainKey(domain);
  return key === null || NUMERIC_LABEL.test(key) ? null : key;
}

/**
 * An e-mail address as given (trimmed, in Unicode's composed form NFC), with the key that makes it
 * unique case-insensitively, whatever the spelling of its accents and of its domain.
 */
export class Email {
  private constructor(
    readonly value: string,
    readonly normalized: string,
  ) {}

  static parse(raw: string, field = 'email'): Email {
    // Composed first: a decomposed accent (a combining mark) is not a letter of a domain label.
    const value = raw.trim().normalize('NFC');
    // Refused rather than removed: an address that only looks like another must not become it silently.
    if (hasInvisibleCharacters(value)) {
      throw new ValidationError([{ field, message: 'must not contain invisible or control characters (such as a zero-width space)' }]);
    }
    const normalized = Email.normalize(value);
    // The key's length is checked too: lower-casing may lengthen a few characters (İ → i̇).
    if (!Email.isValid(value) || normalized.length > MAX_LENGTH) {
      throw new ValidationError([{ field, message: 'must be a valid e-mail address of at most 254 characters' }]);
    }
    return new Email(value, normalized);
  }

  /**
   * The key of an address: trimmed, the local part lower-cased and composed (NFC), the domain as DNS reads it
   * (`domainKey`), so look-alike spellings of one mailbox are one key. Any text has a key: what is no address is
   * lower-cased and composed whole.
   */
  static normalize(value: string): string {
    const text = value.trim();
    const at = text.lastIndexOf('@');
    const domain = at < 0 ? null : domainKey(text.slice(at + 1));
    return domain === null ? comparisonKey(text) : `${comparisonKey(text.slice(0, at))}@${domain}`;
  }

  private static isValid(value: string): boolean {
    if (value.length === 0 || value.length > MAX_LENGTH) return false;
    const at = value.lastIndexOf('@');
    if (at <= 0 || at === value.length - 1) return false;
    const local = value.slice(0, at);
    const domain = value.slice(at + 1);
    if (utf8.encode(local).length > MAX_LOCAL_LENGTH || !LOCAL.test(local)) return false;
    if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
    const labels = domain.split('.');
    return labels.length >= 2 && labels.every((label) => LABEL.test(label)) && domainKey(domain) !== null;
  }
}
