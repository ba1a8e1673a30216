/**
 * Whether this database had its bootstrap admin: recorded once, never undone, so an admin that was
 * created from ADMIN_* and erased since is not created again at the next start of any replica.
 */
export interface BootstrapRecord {
  /** When the bootstrap was recorded, if ever. */
  recordedAt(): Promise<Date | null>;
  /** Records it at `at`; a record already there is kept as it is (a replica starting alongside wrote it first). */
  record(at: Date): Promise<void>;
  /** Whether the database holds any user at all, pending, joined or erased. */
  hasAnyUser(): Promise<boolean>;
}
