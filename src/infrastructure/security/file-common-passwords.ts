import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CommonPasswords } from '../../application/ports/common-passwords.port';
import { stabilizedPassword } from '../../domain/users/password-policy';

/** The shipped list, next to this file (the build copies it into dist). */
export const COMMON_PASSWORDS_FILE = path.join(__dirname, 'common-passwords.txt');

/** A list of common passwords read once from a text file: one a line, `#` comments, compared lower-cased. */
export class FileCommonPasswords implements CommonPasswords {
  private readonly passwords: ReadonlySet<string>;

  constructor(file: string = COMMON_PASSWORDS_FILE) {
    this.passwords = new Set(
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => line.trim().toLowerCase())
        .filter((line) => line.length > 0 && !line.startsWith('#')),
    );
  }

  get size(): number {
    return this.passwords.size;
  }

  includes(password: string): boolean {
    // In the form it would be hashed in (NFKC): full-width "ｐａｓｓｗｏｒｄ１２３" is the common password it becomes.
    return this.passwords.has(stabilizedPassword(password).toLowerCase());
  }
}
