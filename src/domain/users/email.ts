import { ValidationError } from '../shared/domain-error';
import { comparisonKey, hasInvisibleCharacters } from './comparison-key';

const MAX_LENGTH = 254;
const MAX_LOCAL_LENGTH = 64;
// Pragmatic rather than RFC 5322: one @, no white space or control characters,
// a domain of dot-separated labels with a top-level part. Quoted local parts are refused.
const LOCAL = /^[^\s@"(),:;<>[\\\]\p{Cc}]+$/u;
const LABEL = /^(?!-)[\p{L}\p{N}-]{1,63}(?<!-)$/u;

/**
 * An e-mail address as given (trimmed, in Unicode's composed form NFC), with the key that makes it
 * unique case-insensitively and whatever the spelling of its accents.
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

  /** The key of an address: trimmed, lower-cased and composed (NFC), so look-alike spellings are one key. */
  static normalize(value: string): string {
    return comparisonKey(value.trim());
  }

  private static isValid(value: string): boolean {
    if (value.length === 0 || value.length > MAX_LENGTH) return false;
    const at = value.lastIndexOf('@');
    if (at <= 0 || at === value.length - 1) return false;
    const local = value.slice(0, at);
    const domain = value.slice(at + 1);
    if (local.length > MAX_LOCAL_LENGTH || !LOCAL.test(local)) return false;
    if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
    const labels = domain.split('.');
    return labels.length >= 2 && labels.every((label) => LABEL.test(label));
  }
}
