export interface PasswordHasher {
  hash(plain: string): Promise<string>;
  /**
   * True when `plain` matches `hash`. With no hash (unknown or not-yet-joined user) it does
   * the same work against a dummy hash and returns false, so timing tells nothing.
   */
  verify(plain: string, hash: string | undefined): Promise<boolean>;
}
