import { ValidationError } from '../shared/domain-error';
import { comparisonKey } from './comparison-key';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * NIST 800-63B style: length only, no composition rules, and not a commonly used password.
 * Length counts code points; `isCommon` says whether the password is on a list of common ones.
 */
export function assertAcceptablePassword(
  password: string,
  field = 'password',
  isCommon: (password: string) => boolean = () => false,
): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw new ValidationError([
      { field, message: `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long` },
    ]);
  }
  if (isCommon(password)) {
    throw new ValidationError([{ field, message: 'is too common: choose a password that is not on lists of common passwords' }]);
  }
}

/**
 * NIST 800-63B's context-specific words: a password is not the account's own username, e-mail address or the
 * address's local part, in any case, which whoever knows the account (its e-mail is in every invitation) tries first.
 */
export function assertPasswordNotAccountName(password: string, account: { username?: string; email?: string }, field = 'password'): void {
  const names = [account.username, account.email, account.email?.slice(0, account.email.lastIndexOf('@'))];
  const key = comparisonKey(password.trim());
  if (names.some((name) => name !== undefined && name !== '' && comparisonKey(name) === key)) {
    throw new ValidationError([{ field, message: 'must not be your username or e-mail address' }]);
  }
}
