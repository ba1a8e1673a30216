import { ValidationError } from '../shared/domain-error';

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

  static normalize(value: string): string {
    return value.toLowerCase();
  }
}
