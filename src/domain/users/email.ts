import { ValidationError } from '../shared/domain-error';

const MAX_LENGTH = 254;
const MAX_LOCAL_LENGTH = 64;
// Pragmatic rather than RFC 5322: one @, no white space or control characters,
// a domain of dot-separated labels with a top-level part. Quoted local parts are refused.
const LOCAL = /^[^\s@"(),:;<>[\\\]\p{Cc}]+$/u;
const LABEL = /^(?!-)[\p{L}\p{N}-]{1,63}(?<!-)$/u;

/** An e-mail address as given, with the key that makes it unique case-insensitively. */
export class Email {
  private constructor(
    readonly value: string,
    readonly normalized: string,
  ) {}

  static parse(raw: string, field = 'email'): Email {
    const value = raw.trim();
    if (!Email.isValid(value)) {
      throw new ValidationError([{ field, message: 'must be a valid e-mail address of at most 254 characters' }]);
    }
    return new Email(value, Email.normalize(value));
  }

  static normalize(value: string): string {
    return value.trim().toLowerCase();
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
