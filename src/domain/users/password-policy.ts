import { ValidationError } from '../shared/domain-error';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/** NIST 800-63B style: length only, no composition rules. Length counts code points. */
export function assertAcceptablePassword(password: string, field = 'password'): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw new ValidationError([
      { field, message: `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long` },
    ]);
  }
}
