import { ValidationError } from '../shared/domain-error';
import { comparisonKey } from './comparison-key';
import { Email } from './email';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * NIST 800-63B style: length only, no composition rules, and not a commonly used password.
 * Length counts code points: at least 12 of the form that is hashed (NFKC: "e" and a combining accent are one), at
 * most 128 as typed (before any work on it); `isCommon` says whether the password is on a list of common ones.
 */
export function assertAcceptablePassword(
  password: string,
  field = 'password',
  isCommon: (password: string) => boolean = () => false,
): void {
  // Half of a surrogate pair (JSON's "\ud800") is no character: hashed as UTF-8 it becomes U+FFFD, so every such half
  // would be the same password (review J, 2026-12-06).
  if (!password.isWellFormed()) throw new ValidationError([{ field, message: 'must be text: it holds half of a surrogate pair' }]);
  const length = [...password].length;
  if (length > PASSWORD_MAX_LENGTH || [...stabilizedPassword(password)].length < PASSWORD_MIN_LENGTH) {
    throw new ValidationError([
      { field, message: `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long` },
    ]);
  }
  if (isCommon(password)) {
    throw new ValidationError([{ field, message: 'is too common: choose a password that is not on lists of common passwords' }]);
  }
}

/**
 * The form a password is hashed and judged in: Unicode's compatibility composition (NFKC), as NIST 800-63B asks, so
 * a password is one whatever the keyboard sent for it (a precomposed accent or a combining one, a full-width letter
 * or its ASCII one).
 */
export function stabilizedPassword(password: string): string {
  return password.normalize('NFKC');
}

/**
 * NIST 800-63B's context-specific words: a password is not the account's own username, e-mail address or the
 * address's local part, in any case, which whoever knows the account (its e-mail is in every invitation) tries first.
 * Compared in the form that is hashed, and the address by its key (its domain in any spelling).
 */
export function assertPasswordNotAccountName(password: string, account: { username?: string; email?: string }, field = 'password'): void {
  const form = (text: string) => stabilizedPassword(text).trim();
  const typed = comparisonKey(form(password));
  const { username, email } = account;
  const at = email?.lastIndexOf('@') ?? -1;
  const names = [username, at > 0 ? email!.slice(0, at) : undefined].filter((name): name is string => name !== undefined && name !== '');
  const isAddress = email !== undefined && Email.normalize(form(password)) === Email.normalize(form(email));
  if (isAddress || names.some((name) => comparisonKey(form(name)) === typed)) {
    throw new ValidationError([{ field, message: 'must not be your username or e-mail address' }]);
  }
}
