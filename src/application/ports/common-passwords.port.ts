/** Passwords too common to allow (a shipped list), compared case-insensitively. */
export interface CommonPasswords {
  includes(password: string): boolean;
}
