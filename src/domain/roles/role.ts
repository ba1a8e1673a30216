/** A role as its holders see it: its permissions' names. */
export interface Role {
  readonly id: string;
  readonly name: string;
  readonly permissions: readonly string[];
}

/** A role as its administration shows it (GET /v1/roles): the held shape plus its bookkeeping. */
export interface RoleDetails extends Role {
  /** `admin` and `member`, seeded by migration: never deleted nor renamed, and admin keeps every permission. */
  readonly builtIn: boolean;
  /** Optimistic version, 1 at creation: every change moves it on. */
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt?: Date;
  readonly updatedBy?: string;
}

export const RoleNames = { admin: 'admin', member: 'member' } as const;

/** Which of `wanted` the role does not hold. */
export function missingPermissions(held: readonly string[], wanted: readonly string[]): string[] {
  const have = new Set(held);
  return wanted.filter((p) => !have.has(p));
}
