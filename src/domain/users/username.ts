import { ValidationError } from '../shared/domain-error';
import { comparisonKey } from './comparison-key';

// ASCII only: two usernames cannot differ by an accent, a script or an invisible character; case the key folds.
const PATTERN = /^[A-Za-z0-9._-]{3,64}$/;

export class Username {
  private constructor(
    readonly value: string,
    readonly normalized: string,
  ) {}

  static parse(raw: string, field = 'username'): Username {
    if (!PATTERN.test(raw)) {
      throw new ValidationError([
        { field, message: 'must be 3 to 64 characters of letters, digits, ".", "_" or "-"' },
      ]);
    }
    return new Username(raw, Username.normalize(raw));
  }

  /** The key of a username; sign-in keys what it is given this way too, valid or not. */
  static normalize(value: string): string {
    return comparisonKey(value);
  }
}
